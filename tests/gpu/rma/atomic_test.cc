// Atomics between ranks: every operation x type x order x scope (atomic_ranks.cu).
#include "rank_bodies.hpp"
#include "harness.hpp"

namespace symm::test {
namespace {

TEST(RmaAtomics, EveryOperationTypeOrderAndScopeEndsAtTheExpectedValues) {
  SYMM_REQUIRE_GPUS(1);
  EXPECT_EQ(run_on_ranks(2, atomic_rank_body), 0) << "a rank reported failed checks (above)";
}

}  // namespace
}  // namespace symm::test
