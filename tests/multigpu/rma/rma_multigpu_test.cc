// The device API between ranks on separate GPUs (label multigpu): the gpu tier's rank
// bodies (tests/gpu/rma) at full size, over NVLink. Skips with fewer than two GPUs.
#include "harness.hpp"
#include "rank_bodies.hpp"

namespace symm::test {
namespace {

TEST(RmaTwoGpus, AtomicsEndAtTheExpectedValues) {
  SYMM_REQUIRE_GPUS(2);
  EXPECT_EQ(run_on_ranks(2, atomic_rank_body), 0);
}

TEST(RmaTwoGpus, DataMovementIsBitExact) {
  SYMM_REQUIRE_GPUS(2);
  EXPECT_EQ(run_on_ranks(2, rma_rank_body), 0);
}

TEST(RmaTwoGpus, ReleaseAcquireLetsNoStaleReadThrough) {
  SYMM_REQUIRE_GPUS(2);
  EXPECT_EQ(run_on_ranks(2, litmus_rank_body), 0)
      << "stale reads under an ordered pairing, or a weak control with no power (above)";
}

TEST(RmaTwoGpus, HundredThousandRoundTripsLoseRepeatAndCorruptNothing) {
  SYMM_REQUIRE_GPUS(2);
  EXPECT_EQ(run_on_ranks(2, [](Runtime& rt) { return message_rank_body(rt, 100'000); }), 0);
}

TEST(RmaTwoGpus, BarriersOrderEveryRanksWrites) {
  SYMM_REQUIRE_GPUS(2);
  EXPECT_EQ(run_on_ranks(2, barrier_rank_body), 0);
}

}  // namespace
}  // namespace symm::test
