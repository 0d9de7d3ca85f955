// Data movement between ranks, bit-exact (rma_ranks.cu).
#include "harness.hpp"
#include "rank_bodies.hpp"

namespace symm::test {
namespace {

TEST(RmaDataMovement, LoadsStoresRangesAndTilesAreBitExactBetweenTwoRanks) {
  SYMM_REQUIRE_GPUS(1);
  EXPECT_EQ(run_on_ranks(2, rma_rank_body), 0) << "a rank reported failed checks (above)";
}

TEST(RmaDataMovement, LoadsStoresRangesAndTilesAreBitExactBetweenThreeRanks) {
  SYMM_REQUIRE_GPUS(1);  // three ranks: a neighbour is not the only other rank
  EXPECT_EQ(run_on_ranks(3, rma_rank_body), 0) << "a rank reported failed checks (above)";
}

}  // namespace
}  // namespace symm::test
