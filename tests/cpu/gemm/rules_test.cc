// GEMM rules without a GPU: configuration names, the shared-memory budget, can_implement's
// refusals, options out of range and at their bounds, and a plan kept to its problem (the
// heuristic's choices: plan_test.cc).
#include <gtest/gtest.h>

#include <string>

#include "fake_problem.hpp"
#include "symm/common/error.hpp"
#include "symm/gemm/plan.hpp"

namespace symm::gemm {
namespace {

using test::fake;
using test::problem;

TEST(GemmConfig, NamesRoundTrip) {
  EXPECT_EQ(to_string(KernelConfig{128, 128, 64, 6, Schedule::pingpong}), "128x128x64s6-pingpong");
  EXPECT_EQ(to_string(KernelConfig{200, 128, 64, 4, Schedule::swapped, 2}), "200x128x64s4c2-swapped");
  for (const auto& c : kWgmmaConfigs) {
    KernelConfig parsed;
    ASSERT_TRUE(parse_config(to_string(c), parsed)) << to_string(c);
    EXPECT_EQ(parsed, c);
  }
  KernelConfig ignored;
  EXPECT_FALSE(parse_config("128x256x64", ignored));
  EXPECT_FALSE(parse_config("128x256x64s4x", ignored));
  EXPECT_EQ(to_string(KernelConfig{128, 256, 64, 4, Schedule::cooperative, 2}), "128x256x64s4c2");
  EXPECT_EQ(to_string(KernelConfig{128, 192, 64, 4, Schedule::pingpong, 2, 2}), "128x192x64s4c2x2-pingpong");
  KernelConfig column_pair;
  ASSERT_TRUE(parse_config("256x128x64s4c1x2", column_pair));
  EXPECT_EQ(column_pair, (KernelConfig{256, 128, 64, 4, Schedule::cooperative, 1, 2}));
  // One spelling per configuration: 2 x 1 is "c2", never "c2x1".
  for (const char* bad : {"", "-pingpong", "128x128x64s6-ping", "128x128x64s6-pingpongx", "x-pingpong",
                          "128x256x64s4c", "128x256x64s4c1", "128x256x64s4c0", "128x256x64s4c2x", "128x256x64s4c-2",
                          "128x256x64s4c 2", "128x256x64s4c+2", "128x256x64s4c2x1", "128x256x64s4c1x1",
                          "128x256x64s4c02", "128x256x64s4cx2", "128x256x64s4c2x2x2", "128x256x64s4c2y2",
                          "128x256x64s4c2x-2"})
    EXPECT_FALSE(parse_config(bad, ignored)) << bad;
}

TEST(GemmConfig, BudgetCountsEveryByte) {
  // 128x256x64, 4 stages: 4 x 48 KiB operands + 4 x 8 KiB staging + barriers + alignment.
  EXPECT_EQ(KernelConfig({128, 256, 64, 4}).smem_bytes(), 4 * 49152 + 32768 + 1024 + 1024);
  for (const auto& c : kWgmmaConfigs) EXPECT_LE(c.smem_bytes(), kSm90MaxSmemPerBlock) << to_string(c);
  EXPECT_GT(KernelConfig({128, 256, 64, 5}).smem_bytes(), kSm90MaxSmemPerBlock);
  // 192 rows: three consumers, each with its two staging tiles and registers.
  const KernelConfig rows192{192, 160, 64, 4};
  EXPECT_EQ(rows192.consumers(), 3);
  EXPECT_EQ(rows192.smem_bytes(), 4 * (192 + 160) * 128 + 3 * 2 * 8192 + 1024 + 1024);
  EXPECT_EQ(consumer_registers(rows192.consumers()), 152);
  EXPECT_EQ(consumer_registers(KernelConfig({128, 256, 64, 4}).consumers()), 232);
  // setmaxnreg moves registers only within what the block got at launch: 384 threads x 168
  // (two consumers) and 512 x 128 (three), not the SM's 65536.
  // (Each kernel asserts that its split fits: persistent_gemm.cuh.)
  EXPECT_EQ(block_registers(block_threads(2)), 384 * 168);
  EXPECT_EQ(block_registers(block_threads(3)), 65536);
  // Swapped: a consumer per 64 columns; 200 rows of A and 128 of B per stage.
  const KernelConfig swapped{200, 128, 64, 4, Schedule::swapped, 2};
  EXPECT_EQ(swapped.consumers(), 2);
  // 192 columns swapped: a consumer per 64-column block, three; 192 rows swapped: two.
  const KernelConfig swapped192{88, 192, 64, 5, Schedule::swapped};
  EXPECT_EQ(swapped192.consumers(), 3);
  EXPECT_EQ(swapped192.smem_bytes(), 5 * (88 + 192) * 128 + 3 * 2 * 8192 + 1024 + 1024);
  EXPECT_TRUE(swapped192.whole_tiles_only());
  EXPECT_EQ(KernelConfig({192, 128, 64, 4, Schedule::swapped}).consumers(), 2);
  EXPECT_EQ(KernelConfig({192, 192, 64, 4}).consumers(), 3);
  // 100 accumulators per consumer thread leave room for the split-K fixup; 152 (152x256
  // pairs) and 160 (256x160 pairs) in a cluster's kernel do not.
  EXPECT_FALSE(swapped.whole_tiles_only());
  EXPECT_FALSE(KernelConfig({200, 128, 64, 4, Schedule::swapped}).whole_tiles_only());
  EXPECT_FALSE(KernelConfig({128, 256, 64, 4, Schedule::cooperative, 2, 2}).whole_tiles_only());
  EXPECT_TRUE(KernelConfig({152, 256, 64, 4, Schedule::swapped, 2}).whole_tiles_only());
  EXPECT_TRUE(KernelConfig({256, 160, 64, 4, Schedule::cooperative, 1, 2}).whole_tiles_only());
  EXPECT_FALSE(KernelConfig({256, 160, 64, 4}).whole_tiles_only());
  EXPECT_EQ(swapped.smem_bytes(), 4 * (200 + 128) * 128 + 2 * 2 * 8192 + 1024 + 1024);
  // 256x160, 4 stages: two staging tiles per consumer would not fit beside the ring; one does.
  const KernelConfig wide{256, 160, 64, 4};
  EXPECT_EQ(KernelConfig({128, 256, 64, 4}).staging(), 2);
  EXPECT_EQ(wide.staging(), 1);
  EXPECT_GT(smem_budget(256, 160, 64, 4, 2, 2).total(), kSm90MaxSmemPerBlock);
  EXPECT_EQ(wide.smem_bytes(), 4 * (256 + 160) * 128 + 2 * 1 * 8192 + 1024 + 1024);
}

TEST(GemmRules, RefusesWithTheRealReason) {
  const DeviceLimits h200;
  const auto p = problem(4096, 4096, 4096);
  EXPECT_EQ(can_implement({128, 256, 64, 4}, p, h200), "");
  EXPECT_NE(can_implement({128, 256, 64, 5}, p, h200).find("not built"), std::string::npos);
  EXPECT_EQ(can_implement({128, 144, 64, 5}, p, h200), "");
  EXPECT_EQ(can_implement({128, 144, 64, 5}, problem(4096, 4096, 4096, BLayout::kn), h200), "");
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

TEST(GemmRules, OptionsOutOfRangeAreRefusedByName) {
  EXPECT_EQ(validate(GemmOptions{}), "");
  auto refused = [](auto set, const char* variable) {
    GemmOptions o;
    set(o);
    EXPECT_NE(validate(o).find(variable), std::string::npos) << validate(o);
  };
  refused([](GemmOptions& o) { o.num_blocks = -4; }, "SYMM_GEMM_SMS");
  refused([](GemmOptions& o) { o.gsize_m = 0; }, "SYMM_GEMM_GSIZE_M");
  refused([](GemmOptions& o) { o.k_splits = -1; }, "SYMM_GEMM_SPLITS");
  refused([](GemmOptions& o) { o.stream_k = 2; }, "SYMM_GEMM_STREAM_K");
  refused([](GemmOptions& o) { o.stream_k = -2; }, "SYMM_GEMM_STREAM_K");
  refused([](GemmOptions& o) { o.pingpong = 2; }, "SYMM_GEMM_PINGPONG");
  refused([](GemmOptions& o) { o.pingpong = -2; }, "SYMM_GEMM_PINGPONG");
  refused([](GemmOptions& o) { o.pingpong = 1, o.k_splits = 2; }, "SYMM_GEMM_SPLITS");
  refused([](GemmOptions& o) { o.pingpong = 1, o.stream_k = 1; }, "SYMM_GEMM_STREAM_K");
  refused([](GemmOptions& o) { o.split_tail = 2; }, "SYMM_GEMM_SPLIT_TAIL");
  refused([](GemmOptions& o) { o.split_tail = -2; }, "SYMM_GEMM_SPLIT_TAIL");
  refused([](GemmOptions& o) { o.pingpong = 1, o.split_tail = 1; }, "SYMM_GEMM_SPLIT_TAIL");
  refused([](GemmOptions& o) { o.stream_k = 1, o.split_tail = 1; }, "SYMM_GEMM_SPLIT_TAIL");
  refused([](GemmOptions& o) { o.clusters = 2; }, "SYMM_GEMM_CLUSTERS");
  refused([](GemmOptions& o) { o.clusters = -2; }, "SYMM_GEMM_CLUSTERS");
}

// Each bound itself is accepted (the refusals above sit just outside them).
TEST(GemmRules, OptionsAtTheirBoundsAreAccepted) {
  auto accepted = [](auto set) {
    GemmOptions o;
    set(o);
    EXPECT_EQ(validate(o), "");
  };
  accepted([](GemmOptions& o) { o.num_blocks = 0; });
  accepted([](GemmOptions& o) { o.clusters = 1, o.k_splits = 3; });  // cluster kernels split K too
  accepted([](GemmOptions& o) { o.num_blocks = 1; });
  accepted([](GemmOptions& o) { o.gsize_m = 1; });
  accepted([](GemmOptions& o) { o.k_splits = 0; });
  accepted([](GemmOptions& o) { o.k_splits = 1; });
  accepted([](GemmOptions& o) { o.stream_k = -1; });
  accepted([](GemmOptions& o) { o.stream_k = 1; });
  accepted([](GemmOptions& o) { o.split_tail = -1; });
  accepted([](GemmOptions& o) { o.split_tail = 1; });
  accepted([](GemmOptions& o) { o.split_tail = 0, o.stream_k = 1; });
  accepted([](GemmOptions& o) { o.pingpong = -1; });
  accepted([](GemmOptions& o) { o.pingpong = 1; });
  accepted([](GemmOptions& o) { o.pingpong = 1, o.k_splits = 1; });
}

TEST(GemmRules, APlanRunsOnlyTheProblemItWasMadeFor) {
  const Plan plan = make_plan(problem(4096, 4096, 4096), {}, DeviceLimits{});
  EXPECT_EQ(plan_mismatch(problem(4096, 4096, 4096), plan), "");
  EXPECT_EQ(plan_mismatch(problem(4000, 4096, 4096 - 8), plan), "");  // same tiles, ragged
  EXPECT_NE(plan_mismatch(problem(8192, 4096, 4096), plan).find("make the plan for this problem"),
            std::string::npos);
  EXPECT_NE(plan_mismatch(problem(4096, 4096, 8192), plan), "");
  GemmOptions forced;
  forced.force_fallback = true;
  const Plan fallback = make_plan(problem(512, 576, 8192), forced, DeviceLimits{});
  EXPECT_NE(plan_mismatch(problem(1024, 576, 8192), fallback), "");
}

// A plan's operand copies are shaped for its problem: run on another of the same tiles,
// a copy of C would overrun its scratch (more rows) or leave rows unwritten (fewer).
TEST(GemmRules, APlanWithCopiesRunsOnlyOperandsOfItsShape) {
  GemmProblem p = problem(130, 100, 64);  // C rows of 200 bytes: TMA cannot store them
  const Plan plan = make_plan(p, {}, DeviceLimits{});
  ASSERT_EQ(plan.kind, KernelKind::wgmma);
  ASSERT_TRUE(plan.copies.c.needed());
  EXPECT_EQ(plan_mismatch(p, plan), "");
  GemmProblem more_rows = p;
  more_rows.m = 190;  // the same tiles
  EXPECT_NE(plan_mismatch(more_rows, plan).find("the plan copies C as 130 rows of 200 bytes"), std::string::npos)
      << plan_mismatch(more_rows, plan);
  GemmProblem fp32_out = p;
  fp32_out.out_dtype = DType::fp32;  // rows of 400 bytes
  EXPECT_NE(plan_mismatch(fp32_out, plan), "");
  // An operand TMA cannot read, where the plan was made for one it could.
  const Plan direct = make_plan(problem(256, 256, 256), {}, DeviceLimits{});
  ASSERT_FALSE(direct.copies.any());
  GemmProblem unaligned_a = problem(256, 256, 256);
  unaligned_a.a = fake(0x10002);
  EXPECT_NE(plan_mismatch(unaligned_a, direct).find("this problem's A has a pointer or row stride"), std::string::npos)
      << plan_mismatch(unaligned_a, direct);
  // Other operands at other (aligned) addresses: the plan is theirs too.
  GemmProblem moved = problem(256, 256, 256);
  moved.a = fake(0x40000), moved.b = fake(0x50000), moved.c = fake(0x60000);
  EXPECT_EQ(plan_mismatch(moved, direct), "");
}

// The fallback's 16-byte loads need the alignment its plan saw, and its configuration
// must take B's layout.
TEST(GemmRules, AFallbackPlanRunsOnlyOperandsItCanLoad) {
  GemmOptions forced;
  forced.force_fallback = true;
  const Plan aligned = make_plan(problem(512, 576, 512), forced, DeviceLimits{});
  ASSERT_TRUE(aligned.aligned_loads);
  GemmProblem offset_b = problem(512, 576, 512);
  offset_b.b = fake(0x20002);
  EXPECT_NE(plan_mismatch(offset_b, aligned).find("16 bytes at a time"), std::string::npos)
      << plan_mismatch(offset_b, aligned);
  forced.config = FallbackNarrowConfig::desc;  // B as N x K only
  const Plan narrow = make_plan(problem(512, 576, 576), forced, DeviceLimits{});
  EXPECT_EQ(plan_mismatch(problem(512, 576, 576), narrow), "");
  EXPECT_NE(plan_mismatch(problem(512, 576, 576, BLayout::kn), narrow).find("does not take B as"), std::string::npos)
      << plan_mismatch(problem(512, 576, 576, BLayout::kn), narrow);
}

}  // namespace
}  // namespace symm::gemm
