// Ordering: the message-passing litmus test per pairing between blocks of one process
// (block_litmus.cu) and between ranks (litmus_ranks.cu), message passing with answers, and
// the in-kernel barrier (message_ranks.cu, barrier_ranks.cu). With ranks sharing a GPU the
// counts are scaled down, and the litmus test between ranks skips.
#include "harness.hpp"
#include "rank_bodies.hpp"

namespace symm::test {
namespace {

TEST(RmaOrdering, BlocksOfOneKernelSeeNoStaleReadUnderReleaseAcquireAndSomeUnderRelaxed) {
  SYMM_REQUIRE_GPUS(1);
  EXPECT_EQ(run_on_ranks(1, block_litmus_body), 0)
      << "stale reads under an ordered pairing, or a weak control with no power (above)";
}

TEST(RmaOrdering, ReleaseAcquireLetsNoStaleReadThrough) {
  SYMM_REQUIRE_GPUS(1);
  if (count_visible_gpus() < 2) {
    GTEST_SKIP() << "2 ranks would share this GPU and take turns on it: no reordering between them can be "
                    "seen, so the litmus test would pass whatever the order (the two-GPU version is "
                    "RmaTwoGpus.ReleaseAcquireLetsNoStaleReadThrough; on one GPU, "
                    "RmaOrdering.BlocksOfOneKernel*)";
  }
  EXPECT_EQ(run_on_ranks(2, litmus_rank_body), 0)
      << "stale reads under an ordered pairing, or a weak control with no power (above)";
}

TEST(RmaOrdering, MessagePassingLosesRepeatsAndCorruptsNothing) {
  SYMM_REQUIRE_GPUS(1);
  const int messages = count_visible_gpus() >= 2 ? 100'000 : 300;
  EXPECT_EQ(run_on_ranks(2, [&](Runtime& rt) { return message_rank_body(rt, messages); }), 0);
}

TEST(RmaOrdering, BlockAndGridBarriersOrderEveryRanksWrites) {
  SYMM_REQUIRE_GPUS(1);
  EXPECT_EQ(run_on_ranks(2, barrier_rank_body), 0);
}

TEST(RmaOrdering, BarriersHoldWithThreeRanks) {
  SYMM_REQUIRE_GPUS(1);
  EXPECT_EQ(run_on_ranks(3, barrier_rank_body), 0);
}

}  // namespace
}  // namespace symm::test
