// The GEMM heuristic's choices without a GPU: tiles, splits, clusters and schedules for the
// shapes they were measured on (configuration rules and refusals: rules_test.cc; the tile
// scheduler's order: scheduler_test.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <tuple>
#include <vector>
#include <utility>

#include "cost_model.hpp"
#include "fake_problem.hpp"
#include "symm/common/error.hpp"
#include "symm/gemm/gemm.hpp"
#include "symm/gemm/plan.hpp"

namespace symm::gemm {
namespace {

using test::fake;
using test::problem;

TEST(GemmPlan, ThreeConsumerTilesRunWholeTilesOnly) {
  // Their split-K fixup would spill (config.hpp): the planner never splits them, and a
  // forced split is refused naming the knob.
  const KernelConfig rows192{192, 160, 64, 4};
  EXPECT_TRUE(rows192.whole_tiles_only());
  GemmOptions o;
  o.config = rows192;
  EXPECT_EQ(make_plan(problem(777, 4104, 8200), o, DeviceLimits{}).sched.k_splits, 1);
  o.k_splits = 2;
  try {
    make_plan(problem(777, 4104, 8200), o, DeviceLimits{});
    ADD_FAILURE() << "a split of a three-consumer tile was planned";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("SYMM_GEMM_SPLITS"), std::string::npos) << e.what();
  }
}

// One wave on rows neither 128 nor 256 fit: 777 rows are 6 swapped tiles of 144 (132 of
// 144x192) or 4 of 200 (132 of 200x128), 5 tiles of 192 (130 of 192x160), against 119 of
// 128x256 (13 SMs idle, a last row of 9 rows). The 200x128 swapped pair ran 0.78-0.80 of
// cuBLASLt with either layout of B, the 192x160 pair 0.69-0.74, 128x256 0.63
// (bench/results/gemm/2026-12-02-swapped-af7799e); the 144x192 swapped pair 0.915 where the
// tuned 200x128 pair ran 0.893 (2026-12-03-swapped192-009a523). 344 rows are 4 tiles of 88:
// 4 x 33 tiles of 88x192 in pairs, cuBLASLt's own tile there, ran 0.84 with B as N x K
// and 0.87 as K x N, where the tuned plans ran 0.71 and 0.75. The straddle model
// (copy_choice.cc) must not charge the pairs' unshared A rows more.
TEST(GemmPlan, OneWaveOfRaggedRowsFillsTheSms) {
  for (BLayout layout : {BLayout::nk, BLayout::kn}) {
    const Plan plan = make_plan(problem(777, 4104, 8200, layout), GemmOptions{}, DeviceLimits{});
    EXPECT_EQ(plan.config, (KernelConfig{144, 192, 64, 4, Schedule::swapped, 2})) << to_string(plan.config);
    EXPECT_EQ(plan.num_blocks, 132);
    const Plan short_rows = make_plan(problem(344, 6232, 14872, layout), GemmOptions{}, DeviceLimits{});
    EXPECT_EQ(short_rows.config, (KernelConfig{88, 192, 64, 5, Schedule::swapped, 2})) << to_string(short_rows.config);
    EXPECT_EQ(short_rows.num_blocks, 132);
  }
}

// Rows 16 bytes into a 32-byte sector (K = 4104, 2008, 1000). L2 serves a fixed rate of
// row pieces, so a block per tile reads them 1.3-1.75x slower and clusters sharing an
// operand 1.04-1.17x (bench/results/gemm/2026-12-03-straddle-66ee5bd): plans read them in
// place in clusters. 6120 x 3400 with B as N x K: 256x160 tiles sharing A along 1 x 2
// clusters make 4.0 waves and straddle as little as 2 x 2 clusters, 0.99-1.03 of cuBLASLt
// (bench/results/gemm/2026-12-02-wide-2a92a64, -791d965). 2500 x 10008 x 3000 with K x N:
// 160x256 swapped pairs (16 x 40 tiles: 4.85 waves of pairs, 256 columns without a tail
// box), 0.956 of cuBLASLt where 2 x 2 clusters of 128x256 ran 0.91-0.93
// (bench/results/gemm/2026-12-02-swapped256-90dbe48).
TEST(GemmPlan, StraddlingRowsAreReadInPlaceBySharedTiles) {
  const Plan wide = make_plan(problem(6120, 3400, 4104, BLayout::nk), GemmOptions{}, DeviceLimits{});
  EXPECT_EQ(wide.config, (KernelConfig{256, 160, 64, 4, Schedule::cooperative, 1, 2})) << to_string(wide.config);
  EXPECT_EQ(wide.sched.num_units() % (wide.num_blocks / 2), 0) << "whole waves of clusters";
  const Plan swapped = make_plan(problem(2500, 10008, 3000, BLayout::kn), GemmOptions{}, DeviceLimits{});
  EXPECT_EQ(swapped.config, (KernelConfig{160, 256, 64, 4, Schedule::swapped, 2})) << to_string(swapped.config);
  // A short A shared by four blocks along N: 0.96 of cuBLASLt where 200x128 pairs ran 0.77
  // (bench/results/gemm/2026-12-05-clusters8).
  const Plan four = make_plan(problem(800, 5872, 5976, BLayout::nk), GemmOptions{}, DeviceLimits{});
  EXPECT_EQ(four.config, (KernelConfig{160, 256, 64, 4, Schedule::swapped, 1, 4})) << to_string(four.config);
  // 160x192 in 1 x 4 clusters, cuBLASLt's tile on 777 x 4104 x 8200: 0.92-0.94 of cuBLASLt
  // where 144x192 pairs ran 0.87-0.88, 0.83 on 592 x 5000 x 10680 (0.73), picked by the tuner
  // (bench/results/gemm/2026-12-05-l2bound-777): it must stay among the candidates it times.
  const KernelConfig quad192{160, 192, 64, 4, Schedule::swapped, 1, 4};
  for (const auto& [m, n, k, layout] : {std::tuple{777, 4104, 8200, BLayout::nk}, {777, 4104, 8200, BLayout::kn},
                                        {592, 5000, 10680, BLayout::nk}}) {
    const auto tuned = candidate_plans(problem(m, n, k, layout), GemmOptions{}, DeviceLimits{}, kTuneCandidates);
    EXPECT_TRUE(std::ranges::any_of(tuned, [&](const Plan& plan) { return plan.config == quad192; }))
        << m << " x " << n << " x " << k << " " << to_string(layout);
  }
  for (const auto& [m, n, k] : {std::array<int, 3>{6120, 3400, 4104}, {3000, 5000, 2008}, {12296, 2792, 1000}})
    for (BLayout layout : {BLayout::nk, BLayout::kn}) {
      const Plan plan = make_plan(problem(m, n, k, layout), GemmOptions{}, DeviceLimits{});
      EXPECT_TRUE(plan.config.clustered()) << m << " x " << n << " x " << k << ": " << to_string(plan.config);
      EXPECT_FALSE(plan.copies.any()) << m << " x " << n << " x " << k << ": " << plan.reason;
    }
}

// A one-wave problem with rows that straddle sectors: 64-row ping-pong tiles give most SMs
// a tile each (128x128 would leave half idle), shared in clusters so that L2 serves each
// straddling row to fewer blocks. 64x144 tiles in 4 x 1 clusters (B's 144 rows loaded a
// quarter by each block; cuBLASLt's own tile and cluster there) make 28 quads on 1000^3 and
// ran 0.871-0.901 of cuBLASLt where the 64x128 pairs ran 0.813-0.831 in the same call
// (H100, bench/results/gemm/2026-12-06-quads-64row); 64x160 quads, where N fits 160-column
// tiles (1000 x 1120), cover 1120 columns of 1000 and ran 0.853-0.859. In two waves
// (2000 x 1000 x 1000) the quads ran 0.782 where 128x160 ping-pong pairs ran 0.859.
TEST(GemmPlan, OneWaveStraddlingProblemsShareBInQuadsOf64RowTiles) {
  for (const DeviceLimits& d : {DeviceLimits{}, h100_sxm_limits()})
    for (BLayout layout : {BLayout::nk, BLayout::kn}) {
      const Plan plan = make_plan(problem(1000, 1000, 1000, layout), GemmOptions{}, d);
      EXPECT_EQ(plan.config, (KernelConfig{64, 144, 64, 7, Schedule::pingpong, 4})) << to_string(plan.config);
      EXPECT_EQ(plan.num_blocks, 112);
    }
  EXPECT_EQ(make_plan(problem(1000, 1120, 1000), GemmOptions{}, DeviceLimits{}).config,
            (KernelConfig{64, 160, 64, 6, Schedule::pingpong, 4}));
  for (const DeviceLimits& d : {DeviceLimits{}, h100_sxm_limits()})
    EXPECT_EQ(make_plan(problem(2000, 1000, 1000), GemmOptions{}, d).config,
              (KernelConfig{128, 160, 64, 5, Schedule::pingpong, 2}));
}

// Where 192x160 tiles make whole waves (4096 x 1792: 264 tiles, two waves) they beat
// 128x160 ping-pong pairs, which the model rated ahead, in every tuned run on both GPU
// kinds: 4096 x 1792 x 4096 fp16 0.941-0.946 of cuBLASLt against 0.914-0.937 on H200s and
// 1.01 against 0.951 on an H100 (bf16 1.058 against 0.969;
// bench/results/gemm/2026-12-05-rating-192x160).
TEST(GemmPlan, WholeWavesOf192x160TilesBeatPingpongPairs) {
  const Plan plan = make_plan(problem(4096, 1792, 4096), GemmOptions{}, DeviceLimits{});
  EXPECT_EQ(plan.config, (KernelConfig{192, 160, 64, 4})) << to_string(plan.config);
}

// 160x192 swapped tiles in 1 x 4 clusters (A shared by four blocks) where they make whole
// waves of quads with rows that straddle sectors: forced against the plans before them in
// one call on an H100 (bench/results/gemm/2026-12-06-quad-moves), 1912 x 3760 x 5904 0.957
// against 0.881 (128x256, B K x N) and 0.951 against 0.920 (192x160, N x K), 7192 x 1360 x
// 6680 1.097 against 0.861 (200x128 pairs, K x N); 777 x 4104 x 8200 0.918-0.960 against
// 0.849-0.862 for 144x192 pairs in every layout (-twin-777, -quad-moves). On 840 x 3688 x
// 1272 (short K) they lost 2-4 % to the pairs, which keep it.
TEST(GemmPlan, WholeWavesOfQuadsWhereRowsStraddle) {
  const DeviceLimits h200, h100 = h100_sxm_limits();
  const KernelConfig quads{160, 192, 64, 4, Schedule::swapped, 1, 4};
  for (const BLayout layout : {BLayout::nk, BLayout::kn}) {
    EXPECT_EQ(make_plan(problem(1912, 3760, 5904, layout), GemmOptions{}, h200).config, quads);
    EXPECT_EQ(make_plan(problem(1912, 3760, 5904, layout), GemmOptions{}, h100).config, quads);
    EXPECT_EQ(make_plan(problem(777, 4104, 8200, layout), GemmOptions{}, h100).config, quads);
    EXPECT_NE(make_plan(problem(840, 3688, 1272, layout), GemmOptions{}, h100).config, quads);
  }
  EXPECT_EQ(make_plan(problem(7192, 1360, 6680, BLayout::kn), GemmOptions{}, h100).config, quads);
}

// Decode-sized M is memory-bound: spreading K over more blocks does not make memory
// deliver B sooner, and split partials add traffic. Whole-K 64x128 tiles, one per block,
// ran 0.85-0.98 of cuBLASLt at M = 1-64 (N = K = 8192) where 128x128 tiles with K split 2
// ran 0.65-0.80 (bench/results/gemm/2026-12-02-smallm-2908839); at M = 128 the single
// blocks ran 1.003, the same tiles in pairs 0.956, which share B for nothing when memory
// delivers it once either way. Pairs whose second tiles lie past M (64 x 4096 x 4096) ran
// 0.73-0.76 where single blocks ran 0.83 (2026-12-02-floor-4963d4a).
TEST(GemmPlan, DecodeSizedRowsReadBOnceWithoutSplits) {
  for (BLayout layout : {BLayout::nk, BLayout::kn})
    EXPECT_FALSE(make_plan(problem(64, 4096, 4096, layout), GemmOptions{}, DeviceLimits{}).config.clustered());
  for (int m : {1, 16, 64, 128})
    for (BLayout layout : {BLayout::nk, BLayout::kn}) {
      const Plan plan = make_plan(problem(m, 8192, 8192, layout), GemmOptions{}, DeviceLimits{});
      EXPECT_EQ(plan.config, (KernelConfig{64, 128, 64, 8, Schedule::pingpong})) << m << ": " << to_string(plan.config);
      EXPECT_EQ(plan.sched.k_splits, 1) << m;
    }
}

TEST(GemmPlan, FallbackWhenTmaCannotDescribeOrWhenForced) {
  const DeviceLimits h200;
  auto odd = problem(100, 100, 101);
  odd.lda = 101;
  GemmOptions in_place;  // no operand copies (with them, WGMMA runs it: operand_copies_test)
  in_place.operand_copies = false;
  const Plan p1 = make_plan(odd, in_place, h200);
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

// The fallback's grid has a row of blocks per 128 rows, at most 65535: more is refused at
// planning, saying what runs it instead, not at the launch.
TEST(GemmPlan, FallbackRefusesMoreRowTilesThanItsGridTakes) {
  GemmOptions forced;
  forced.force_fallback = true;
  EXPECT_EQ(make_plan(problem(65535 * 128, 64, 64), forced, DeviceLimits{}).kind, KernelKind::fallback);
  try {
    make_plan(problem(65535 * 128 + 1, 64, 64), forced, DeviceLimits{});
    ADD_FAILURE() << "65536 row tiles were planned for the fallback";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("M up to 8388480"), std::string::npos) << e.what();
  }
}

TEST(GemmPlan, FallbackSplitsKOnlyWhereTilesLeaveSmsIdle) {
  GemmOptions forced;
  forced.force_fallback = true;
  const Plan square = make_plan(problem(8192, 8192, 8192), forced, DeviceLimits{});
  EXPECT_EQ(square.config, FallbackConfig::desc);
  EXPECT_EQ(square.sched.k_splits, 1);
  EXPECT_EQ(workspace_bytes(square), 0u);
  // 8192 x 576: 96-wide tiles fill the 576 columns (6 x 64 tiles for 264 resident blocks).
  const auto shard = problem(8192, 576, 36864);
  const Plan skinny = make_plan(shard, forced, DeviceLimits{});
  EXPECT_EQ(skinny.config, FallbackNarrowConfig::desc) << describe(shard, skinny);
  EXPECT_GT(skinny.sched.k_splits, 1) << describe(shard, skinny);
  EXPECT_EQ(skinny.num_blocks, skinny.sched.num_tiles() * skinny.sched.k_splits);
  // A partial per (tile, split) and a counter per tile.
  EXPECT_EQ(workspace_bytes(skinny),
            (std::size_t(skinny.sched.num_tiles()) * 4 + 255) / 256 * 256 +
                std::size_t(skinny.sched.num_tiles()) * skinny.sched.k_splits * 128 * 96 * 4);
  // B as K x N: 128-wide tiles only.
  EXPECT_EQ(make_plan(problem(8192, 576, 36864, BLayout::kn), forced, DeviceLimits{}).config,
            FallbackConfig::desc);
  forced.k_splits = 1;
  EXPECT_EQ(make_plan(shard, forced, DeviceLimits{}).sched.k_splits, 1);
  // A configuration given with force_fallback must be a fallback one for B's layout.
  forced.config = FallbackConfig::desc;
  EXPECT_EQ(make_plan(shard, forced, DeviceLimits{}).config, FallbackConfig::desc);
  forced.config = FallbackNarrowConfig::desc;
  EXPECT_THROW(make_plan(problem(8192, 576, 36864, BLayout::kn), forced, DeviceLimits{}), Error);
  forced.config = KernelConfig{128, 256, 64, 4};
  EXPECT_THROW(make_plan(shard, forced, DeviceLimits{}), Error);
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
  EXPECT_FALSE(p.sched.stream_k());
  EXPECT_EQ(p.num_blocks, 132);
  EXPECT_EQ(workspace_bytes(p), 0u);
}

TEST(GemmPlan, SkinnyShardIsSpreadOverTheGpu) {
  // The 8-rank shard of (4096, 4608, 36864): N = 576 = 4 x 144, so 128x144 tiles make 128
  // work tiles for 132 SMs without splitting K.
  const auto nk = problem(4096, 576, 36864);
  const Plan p = make_plan(nk, {}, DeviceLimits{});
  EXPECT_EQ(to_string(p.config), "128x144x64s5") << describe(nk, p);
  EXPECT_EQ(p.sched.k_splits, 1);
  EXPECT_EQ(p.num_blocks, 128);
  EXPECT_EQ(workspace_bytes(p), 0u);

  // B as K x N: 128x144 reads its last 16 columns through a narrow box of its own, rated
  // 0.85 as fast, so 3 x 192 columns with K split fill the GPU instead (its 96 tiles alone
  // would leave 36 SMs idle).
  const auto kn = problem(4096, 576, 36864, BLayout::kn);
  const Plan s = make_plan(kn, {}, DeviceLimits{});
  EXPECT_EQ(s.config.blk_n, 192) << describe(kn, s);
  EXPECT_FALSE(s.sched.stream_k());
  EXPECT_GT(s.sched.k_splits, 1);
  EXPECT_EQ(s.num_blocks, 132);
  EXPECT_GT(workspace_bytes(s), 0u);
  // Forced, 128x144 runs it as whole tiles with either layout.
  GemmOptions o;
  o.config = KernelConfig{128, 144, 64, 5};
  const Plan forced = make_plan(kn, o, DeviceLimits{});
  EXPECT_EQ(forced.sched.k_splits, 1);
  EXPECT_EQ(forced.num_blocks, 128);
}

TEST(GemmPlan, StreamKEvensOutThePartialWave) {
  // 128x256 tiles of 16384 x 8192: 4096 tiles, 31 waves of 132 and 4 tiles left over.
  const auto p = problem(16384, 8192, 16384);
  GemmOptions o;
  o.config = KernelConfig{128, 256, 64, 4};
  o.stream_k = 1;
  const Plan sk = make_plan(p, o, DeviceLimits{});
  ASSERT_TRUE(sk.sched.stream_k()) << describe(p, sk);
  EXPECT_EQ(sk.sched.dp_tiles, 30 * 132);
  EXPECT_EQ(sk.num_blocks, 132);
  EXPECT_GT(workspace_bytes(sk), 0u);
  o.stream_k = 0;
  o.split_tail = 0;  // whole tiles in every wave (LastWaveSplitOnLongK splits the last)
  const Plan dp = make_plan(p, o, DeviceLimits{});
  EXPECT_FALSE(dp.sched.stream_k());
  EXPECT_EQ(dp.sched.k_splits, 1);
  EXPECT_LT(predicted_cost(sk.config, sk.sched, 132, p.b_layout), predicted_cost(dp.config, dp.sched, 132, p.b_layout));

  // The tuner's candidates include stream-K plans when the heuristic may choose it (-1),
  // not by default.
  const auto has_stream_k = [&](const GemmOptions& opts) {
    for (const Plan& plan : candidate_plans(p, opts, DeviceLimits{}, 16))
      if (plan.sched.stream_k()) return true;
    return false;
  };
  EXPECT_FALSE(has_stream_k(GemmOptions{}));
  GemmOptions heuristic;
  heuristic.stream_k = -1;
  EXPECT_TRUE(has_stream_k(heuristic));
}

// The last wave split: on long K (8192 x 4608 x 36864: 128x192 tiles make 11.6 waves) the
// plan keeps the full waves whole and splits the last one's tiles into units of 64 or more
// K iterations, a workspace for those tiles only; SYMM_GEMM_SPLIT_TAIL=0 keeps every tile
// whole; short K (16384 x 4096 x 4096: 64 iterations) is not split by the heuristic, but
// split_tail=1 forces it; whole waves leave nothing to split.
TEST(GemmPlan, LastWaveSplitOnLongK) {
  const auto p = problem(8192, 4608, 36864);
  GemmOptions o;
  o.config = KernelConfig{128, 192, 64, 4};
  const Plan tail = make_plan(p, o, DeviceLimits{});
  ASSERT_GT(tail.sched.k_splits, 1) << describe(p, tail);
  EXPECT_FALSE(tail.sched.stream_k());
  EXPECT_EQ(tail.sched.dp_tiles, 11 * 132) << describe(p, tail);
  EXPECT_GE(tail.sched.k_iters / tail.sched.k_splits, 64);
  EXPECT_EQ(tail.num_blocks, 132);
  const WorkspaceLayout ws = workspace_layout(tail);
  EXPECT_EQ(ws.partial_bytes, std::size_t(tail.sched.split_tiles()) * (tail.sched.k_splits - 1) * 128 * 192 * 4);
  EXPECT_NE(describe(p, tail).find("of the last 84 tiles (1452 whole)"), std::string::npos) << describe(p, tail);
  o.split_tail = 0;
  EXPECT_EQ(make_plan(p, o, DeviceLimits{}).sched.k_splits, 1);

  const auto short_k = problem(16384, 4096, 4096);
  o.config = KernelConfig{128, 256, 64, 4};
  o.split_tail = -1;
  EXPECT_EQ(make_plan(short_k, o, DeviceLimits{}).sched.dp_tiles, 0);
  o.split_tail = 1;
  const Plan forced = make_plan(short_k, o, DeviceLimits{});
  EXPECT_EQ(forced.sched.dp_tiles, 15 * 132) << describe(short_k, forced);
  EXPECT_GT(forced.sched.k_splits, 1);

  const Plan whole = make_plan(problem(8448, 4608, 36864), o, DeviceLimits{});  // 12 whole waves
  EXPECT_EQ(whole.sched.dp_tiles, 0);
  EXPECT_NE(whole.reason.find("SYMM_GEMM_SPLIT_TAIL"), std::string::npos) << whole.reason;
}

// Ping-pong plans compute whole tiles: never split, whatever the shape, and the option
// selects or excludes them.
TEST(GemmPlan, PingpongFollowsTheOptionAndNeverSplits) {
  for (const auto& shape : {std::array<int, 3>{8192, 8192, 1024}, {4096, 576, 36864}, {300, 200, 5000}}) {
    const GemmProblem p = problem(shape[0], shape[1], shape[2]);
    GemmOptions only;
    only.pingpong = 1;
    for (const Plan& plan : candidate_plans(p, only, DeviceLimits{}, 16)) {
      EXPECT_TRUE(plan.config.pingpong()) << describe(p, plan);
      EXPECT_EQ(plan.sched.k_splits, 1) << describe(p, plan);
      EXPECT_FALSE(plan.sched.stream_k()) << describe(p, plan);
    }
    EXPECT_TRUE(make_plan(p, only, DeviceLimits{}).config.pingpong());
    GemmOptions never;
    never.pingpong = 0;
    for (const Plan& plan : candidate_plans(p, never, DeviceLimits{}, 16))
      EXPECT_FALSE(plan.config.pingpong()) << describe(p, plan);
  }
  GemmOptions forced;
  forced.config = KernelConfig{128, 128, 64, 6, Schedule::pingpong};
  forced.k_splits = 4;
  EXPECT_THROW(make_plan(problem(4096, 4096, 4096), forced, DeviceLimits{}), Error);
  forced.k_splits = 0;
  forced.pingpong = 0;
  EXPECT_THROW(make_plan(problem(4096, 4096, 4096), forced, DeviceLimits{}), Error);
}


TEST(GemmPlan, CandidatesAreDistinctAndBestFirst) {
  const GemmProblem aligned = problem(8192, 4608, 36864);  // rows on sectors: no copies, costs as modelled
  const auto plans = candidate_plans(aligned, {}, DeviceLimits{}, 3);
  ASSERT_EQ(plans.size(), 3u);
  for (std::size_t i = 1; i < plans.size(); ++i)
    EXPECT_LE(detail::problem_cost(aligned, plans[i - 1].config, plans[i - 1].sched, plans[i - 1].num_blocks, {}),
              detail::problem_cost(aligned, plans[i].config, plans[i].sched, plans[i].num_blocks, {}))
        << "candidate " << i - 1 << " is predicted slower than candidate " << i;
  EXPECT_NE(plans[0].config, plans[1].config);
  EXPECT_NE(plans[1].config, plans[2].config);
  // Where rows straddle lines each configuration could come twice, read in place and
  // through copies (on K = 2008 three would, among the best 12): each configuration and
  // decomposition comes once, so that the tuner's few runs go to different kernels.
  const GemmProblem short_k = problem(6144, 3456, 2008);
  const auto many = candidate_plans(short_k, {}, DeviceLimits{}, 12);
  ASSERT_EQ(many.size(), 12u);
  for (std::size_t i = 0; i < many.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_FALSE(many[i].config == many[j].config && many[i].sched.k_splits == many[j].sched.k_splits &&
                   many[i].sched.stream_k() == many[j].sched.stream_k())
          << describe(short_k, many[i]);
}

TEST(GemmPlan, BlocksFollowGemmSms) {
  GemmOptions o;
  o.num_blocks = 100;
  EXPECT_EQ(make_plan(problem(8192, 8192, 8192), o, DeviceLimits{}).num_blocks, 100);
  o.num_blocks = 1000;  // never more than one block per SM
  EXPECT_EQ(make_plan(problem(8192, 8192, 8192), o, DeviceLimits{}).num_blocks, 132);
  o.num_blocks = 0;
  // Never more blocks than work units (a cluster's blocks share one).
  const Plan small = make_plan(problem(128, 256, 64), o, DeviceLimits{});
  EXPECT_EQ(small.num_blocks, small.sched.num_units() * small.config.cluster_blocks());
  EXPECT_LE(small.num_blocks, 4);
}

// 4-block clusters run on the blocks the device can hold in such clusters at once (an
// H200: 30 clusters), never more; a device that can hold none plans without them, and a
// forced 4-block configuration is refused saying so.
TEST(GemmPlan, FourBlockClustersFitTheDevice) {
  const KernelConfig quad{128, 256, 64, 4, Schedule::cooperative, 2, 2};
  GemmOptions forced;
  forced.config = quad;
  DeviceLimits h200;
  EXPECT_EQ(make_plan(problem(8192, 8192, 8192), forced, h200).num_blocks, h200.quad_cluster_blocks);
  forced.num_blocks = 50;
  EXPECT_EQ(make_plan(problem(8192, 8192, 8192), forced, h200).num_blocks, 48);
  forced.num_blocks = 0;
  DeviceLimits none = h200;
  none.quad_cluster_blocks = 0;
  for (const Plan& p : candidate_plans(problem(3000, 5000, 2008), {}, none, 100))
    EXPECT_NE(p.config.cluster_blocks(), 4) << to_string(p.config);
  try {
    make_plan(problem(8192, 8192, 8192), forced, none);
    ADD_FAILURE() << "a 4-block cluster planned where none fits";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("can hold none"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace symm::gemm
