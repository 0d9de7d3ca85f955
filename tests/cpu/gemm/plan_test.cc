// GEMM rules without a GPU: configuration names, the shared-memory budget, the tile
// scheduler's order, can_implement's refusals and the heuristic's choices.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <utility>

#include "symm/common/error.hpp"
#include "symm/gemm/plan.hpp"

namespace symm::gemm {
namespace {

// Addresses the planner only inspects for alignment.
void* fake(std::uintptr_t addr) { return reinterpret_cast<void*>(addr); }

GemmProblem problem(std::int64_t m, std::int64_t n, std::int64_t k, BLayout l = BLayout::nk) {
  return GemmProblem{m, n, k, fake(0x10000), k, fake(0x20000), l == BLayout::nk ? k : n, l,
                     fake(0x30000), n, DType::bf16, DType::bf16};
}

TEST(GemmConfig, NamesRoundTrip) {
  for (const auto& c : kWgmmaConfigs) {
    KernelConfig parsed;
    ASSERT_TRUE(parse_config(to_string(c), parsed)) << to_string(c);
    EXPECT_EQ(parsed, c);
  }
  KernelConfig ignored;
  EXPECT_FALSE(parse_config("128x256x64", ignored));
  EXPECT_FALSE(parse_config("128x256x64s4x", ignored));
}

TEST(GemmConfig, BudgetCountsEveryByte) {
  // 128x256x64, 4 stages: 4 x 48 KiB operands + 4 x 8 KiB staging + barriers + alignment.
  EXPECT_EQ(KernelConfig({128, 256, 64, 4}).smem_bytes(), 4 * 49152 + 32768 + 1024 + 1024);
  for (const auto& c : kWgmmaConfigs) EXPECT_LE(c.smem_bytes(), kSm90MaxSmemPerBlock) << to_string(c);
  EXPECT_GT(KernelConfig({128, 256, 64, 5}).smem_bytes(), kSm90MaxSmemPerBlock);
}

TEST(GemmScheduler, GroupedOrderVisitsEveryTileOnce) {
  for (int gsize : {1, 3, 8, 100}) {
    const auto s = TileScheduler::make(1000, 700, 300, 128, 64, 64, 1, gsize);
    std::set<std::pair<int, int>> seen;
    for (int t = 0; t < s.num_tiles(); ++t) {
      int tm = 0, tn = 0;
      s.tile_coords(t, tm, tn);
      ASSERT_TRUE(tm >= 0 && tm < s.tiles_m && tn >= 0 && tn < s.tiles_n);
      EXPECT_TRUE(seen.emplace(tm, tn).second) << "tile " << t << " repeats (" << tm << "," << tn << ")";
    }
    EXPECT_EQ(int(seen.size()), s.num_tiles());
  }
  // Within a group, consecutive tiles walk down the group's rows first.
  const auto s = TileScheduler::make(1024, 1024, 64, 128, 128, 64, 1, 4);
  int tm = 0, tn = 0;
  s.tile_coords(1, tm, tn);
  EXPECT_EQ(std::make_pair(tm, tn), std::make_pair(1, 0));
  s.tile_coords(4, tm, tn);
  EXPECT_EQ(std::make_pair(tm, tn), std::make_pair(0, 1));
}

TEST(GemmScheduler, SplitsCoverKExactly) {
  for (int splits : {1, 2, 3, 7, 16}) {
    const auto s = TileScheduler::make(128, 128, 64 * 37 + 5, 128, 128, 64, splits, 1);
    int next = 0;
    for (int split = 0; split < splits; ++split) {
      const WorkUnit w = s.unit(split);
      EXPECT_EQ(w.tile, 0);
      EXPECT_EQ(w.k_begin, next);
      EXPECT_GE(w.k_end - w.k_begin, s.k_iters / splits);
      next = w.k_end;
    }
    EXPECT_EQ(next, s.k_iters);
  }
}

TEST(GemmRules, RefusesWithTheRealReason) {
  const DeviceLimits h200;
  const auto p = problem(4096, 4096, 4096);
  EXPECT_EQ(can_implement({128, 256, 64, 4}, p, h200), "");
  EXPECT_NE(can_implement({128, 256, 64, 5}, p, h200).find("not built"), std::string::npos);
  DeviceLimits small = h200;
  small.max_smem_per_block = 100 * 1024;
  EXPECT_NE(can_implement({128, 256, 64, 4}, p, small).find("shared memory"), std::string::npos);
  DeviceLimits ampere = h200;
  ampere.cc_major = 8;
  EXPECT_NE(can_implement({128, 256, 64, 4}, p, ampere).find("sm_90a"), std::string::npos);
  auto odd = p;
  odd.lda = 4097;
  EXPECT_NE(can_implement({128, 256, 64, 4}, odd, h200).find("lda"), std::string::npos);
  auto shifted = p;
  shifted.c = fake(0x30008);
  EXPECT_NE(tma_incompatibility(shifted).find("16-byte"), std::string::npos);
  auto fp32_in = p;
  fp32_in.in_dtype = DType::fp32;
  EXPECT_NE(validate(fp32_in), "");
  auto mixed = p;
  mixed.out_dtype = DType::fp16;
  EXPECT_NE(validate(mixed), "");
}

TEST(GemmPlan, FallbackWhenTmaCannotDescribeOrWhenForced) {
  const DeviceLimits h200;
  auto odd = problem(100, 100, 101);
  odd.lda = 101;
  const Plan p1 = make_plan(odd, {}, h200);
  EXPECT_EQ(p1.kind, KernelKind::fallback);
  EXPECT_FALSE(p1.aligned_loads);
  EXPECT_NE(p1.reason.find("lda"), std::string::npos) << p1.reason;

  GemmOptions forced;
  forced.force_fallback = true;
  const Plan p2 = make_plan(problem(512, 512, 512), forced, h200);
  EXPECT_EQ(p2.kind, KernelKind::fallback);
  EXPECT_TRUE(p2.aligned_loads);

  DeviceLimits ampere = h200;
  ampere.cc_major = 8;
  EXPECT_EQ(make_plan(problem(512, 512, 512), {}, ampere).kind, KernelKind::fallback);
}

TEST(GemmPlan, ForcedConfigurationIsUsedOrRefused) {
  const DeviceLimits h200;
  GemmOptions o;
  o.config = KernelConfig{256, 64, 64, 3};
  EXPECT_EQ(make_plan(problem(1024, 1024, 1024), o, h200).config, *o.config);
  o.config = KernelConfig{64, 64, 64, 2};
  EXPECT_THROW(make_plan(problem(1024, 1024, 1024), o, h200), Error);
  EXPECT_THROW(make_plan(problem(0, 1024, 1024), {}, h200), Error);
}

TEST(GemmPlan, LargeSquareUsesFullTilesWithoutSplits) {
  const Plan p = make_plan(problem(8192, 8192, 8192), {}, DeviceLimits{});
  EXPECT_EQ(p.kind, KernelKind::wgmma);
  EXPECT_GE(p.config.blk_m * p.config.blk_n, 128 * 192) << to_string(p.config);
  EXPECT_EQ(p.sched.k_splits, 1);
  EXPECT_EQ(p.num_blocks, 132);
  EXPECT_EQ(workspace_bytes(p), 0u);
}

TEST(GemmPlan, SkinnyShardIsSplitToFillTheGpu) {
  // The 8-rank shard of (4096, 4608, 36864): N = 576 = 3 x 192.
  const Plan p = make_plan(problem(4096, 576, 36864), {}, DeviceLimits{});
  EXPECT_EQ(p.config.blk_n, 192);
  EXPECT_GT(p.sched.k_splits, 1);
  const double used = double(p.sched.num_units()) /
                      (std::ceil(double(p.sched.num_units()) / p.num_blocks) * p.num_blocks);
  EXPECT_GT(used, 0.9) << "work units fill " << used << " of the last wave";
  EXPECT_GT(workspace_bytes(p), 0u);
}

TEST(GemmPlan, BlocksFollowGemmSms) {
  GemmOptions o;
  o.num_blocks = 100;
  EXPECT_EQ(make_plan(problem(8192, 8192, 8192), o, DeviceLimits{}).num_blocks, 100);
  o.num_blocks = 1000;  // never more than one block per SM
  EXPECT_EQ(make_plan(problem(8192, 8192, 8192), o, DeviceLimits{}).num_blocks, 132);
  // Never more blocks than work units.
  const Plan small = make_plan(problem(128, 256, 64), {}, DeviceLimits{});
  EXPECT_EQ(small.num_blocks, small.sched.num_units());
  EXPECT_LE(small.num_blocks, 2);
}

}  // namespace
}  // namespace symm::gemm
