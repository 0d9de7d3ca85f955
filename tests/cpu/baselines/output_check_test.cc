// The tolerance rule of every GEMM output check (symm-bench, the GEMM + all-scatter
// driver): its scale with the output type and K, its boundary on both sides of the
// reference, NaN and Inf never passing, and the description of a mismatch.
#include "symm/baselines/output_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace symm::baselines {
namespace {

TEST(OutputTolerance, RelativePartIsTheOutputTypesEpsilon) {
  EXPECT_EQ(output_tolerance(gemm::DType::bf16, 1).rtol, std::ldexp(1.0, -7));
  EXPECT_EQ(output_tolerance(gemm::DType::fp16, 1).rtol, std::ldexp(1.0, -10));
  EXPECT_EQ(output_tolerance(gemm::DType::fp32, 1).rtol, std::ldexp(1.0, -23));
}

TEST(OutputTolerance, AbsolutePartGrowsWithTheSquareRootOfK) {
  EXPECT_DOUBLE_EQ(output_tolerance(gemm::DType::bf16, 1).atol, 1e-3);
  EXPECT_DOUBLE_EQ(output_tolerance(gemm::DType::bf16, 36864).atol, 0.192);
  EXPECT_DOUBLE_EQ(output_tolerance(gemm::DType::fp16, 4 * 36864).atol, 2 * 0.192);
}

// rtol * 128 + atol = 1.25 exactly, so the boundary is exact in binary.
constexpr Tolerance kTol{0x1p-7, 0.25};

TEST(WithinTolerance, TheBoundaryPassesAndJustBeyondFailsOnBothSides) {
  EXPECT_TRUE(within_tolerance(129.25, 128, kTol));
  EXPECT_TRUE(within_tolerance(126.75, 128, kTol));
  EXPECT_FALSE(within_tolerance(129.25 + 1e-9, 128, kTol));
  EXPECT_FALSE(within_tolerance(126.75 - 1e-9, 128, kTol));
  EXPECT_TRUE(within_tolerance(-129.25, -128, kTol));  // relative to |ref|
  EXPECT_FALSE(within_tolerance(-126.75 + 1e-9, -128, kTol));
}

TEST(WithinTolerance, NearZeroOnlyTheAbsolutePartCounts) {
  EXPECT_TRUE(within_tolerance(0.25, 0, kTol));
  EXPECT_FALSE(within_tolerance(-0.25 - 1e-9, 0, kTol));
}

TEST(WithinTolerance, NanAndInfinityNeverPass) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  constexpr double inf = std::numeric_limits<double>::infinity();
  const Tolerance loose{1e300, 1e300};
  EXPECT_FALSE(within_tolerance(nan, 1, loose));
  EXPECT_FALSE(within_tolerance(inf, 1, loose));
  EXPECT_FALSE(within_tolerance(-inf, 1, loose));
  EXPECT_FALSE(within_tolerance(inf, inf, loose));
  EXPECT_FALSE(within_tolerance(1, nan, loose));
}

// With the real rule (bf16, K = 1): 1000 is a bf16 value whose neighbours are 4 apart;
// one unit off passes, four do not.
TEST(WithinTolerance, Bf16OutputsOneUnitOffPassFourUnitsOffFail) {
  const Tolerance bf16 = output_tolerance(gemm::DType::bf16, 1);
  EXPECT_TRUE(within_tolerance(1004, 1000, bf16));
  EXPECT_FALSE(within_tolerance(1016, 1000, bf16));
}

TEST(DescribeMismatch, GivesCountRowColumnGotAndExpected) {
  const Mismatch m{3, 1 * 10 + 7, 0.5f, 2.0f};
  EXPECT_EQ(describe(m, 10, "C"), "3 wrong elements of C, first at row 1 col 7: got 0.5, expected 2");
}

}  // namespace
}  // namespace symm::baselines
