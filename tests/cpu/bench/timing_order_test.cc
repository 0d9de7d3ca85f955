// symm-bench's contender order and paired ratio (tools/symm-bench/timing_order.hpp).
#include "timing_order.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "symm/common/error.hpp"

namespace symm::bench {
namespace {

using Order = std::vector<std::size_t>;

TEST(TimingOrder, ReversesEveryOtherRepeatAndStartsReversedOnEveryOtherProblem) {
  EXPECT_EQ(timing_order(0, 0, 3), (Order{0, 1, 2}));
  EXPECT_EQ(timing_order(1, 0, 3), (Order{2, 1, 0}));
  EXPECT_EQ(timing_order(2, 0, 3), (Order{0, 1, 2}));
  EXPECT_EQ(timing_order(0, 1, 3), (Order{2, 1, 0}));
  EXPECT_EQ(timing_order(1, 1, 3), (Order{0, 1, 2}));
  EXPECT_EQ(timing_order(0, 0, 0), Order{});
}

TEST(TimingOrder, OursAndCublasGoFirstEquallyOftenOverPairsOfProblems) {
  // Three repeats (symm-bench's default) on two problems: each of two contenders first
  // three times.
  int ours_first = 0, cublas_first = 0;
  for (int problem = 0; problem < 2; ++problem)
    for (int repeat = 0; repeat < 3; ++repeat)
      (timing_order(repeat, problem, 2).front() == 0 ? ours_first : cublas_first) += 1;
  EXPECT_EQ(ours_first, 3);
  EXPECT_EQ(cublas_first, 3);
}

TEST(PairedRatio, IsTheMedianOfThePerRepeatRatiosNotTheRatioOfMedians) {
  // 1024 x 8192 x 3584 bf16 at 6f6f5e7 (ms per repeat): the ratio of medians pairs our
  // second repeat with cuBLASLt's second and gives 0.893; per repeat 0.978, 0.893, 0.985.
  const std::vector<double> cublas{0.0947, 0.0860, 0.0859}, ours{0.0968, 0.0963, 0.0872};
  EXPECT_NEAR(paired_ratio(cublas, ours), 0.0947 / 0.0968, 1e-12);
  EXPECT_DOUBLE_EQ(paired_ratio(std::vector<double>{3, 1, 2}, std::vector<double>{1, 1, 1}), 2.0);
  // An even count: the mean of the middle two, as do_bench's median of its samples.
  EXPECT_DOUBLE_EQ(paired_ratio(std::vector<double>{1, 4}, std::vector<double>{1, 1}), 2.5);
  EXPECT_DOUBLE_EQ(repeat_median({4, 1, 3, 2}), 2.5);
}

TEST(PairedRatio, RefusesMissingRepeats) {
  EXPECT_THROW(paired_ratio(std::vector<double>{}, std::vector<double>{}), Error);
  EXPECT_THROW(paired_ratio(std::vector<double>{1, 2}, std::vector<double>{1}), Error);
}

}  // namespace
}  // namespace symm::bench
