// Ordering between ranks: the message-passing litmus test per memory order, message
// passing with answers, and the in-kernel barrier (litmus_ranks.cu, message_ranks.cu,
// barrier_ranks.cu). With ranks sharing a GPU the counts are scaled down.
#include "harness.hpp"
#include "rank_bodies.hpp"

namespace symm::test {
namespace {

TEST(RmaOrdering, ReleaseAcquireLetsNoStaleReadThrough) {
  SYMM_REQUIRE_GPUS(1);
  EXPECT_EQ(run_on_ranks(2, litmus_rank_body), 0) << "stale reads under release/acquire (above)";
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
