// GEMM + all-scatter planning without a GPU: every refusal names what was wrong, every
// plan made is one the kernels can run (tiles their hooks can publish, blocks that fit, no
// deadlock).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "symm/common/error.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::ops {
namespace {

constexpr int kH200Sms = 132;

AllScatterShape shape(std::int64_t m, std::int64_t n, std::int64_t k,
                      gemm::BLayout layout = gemm::BLayout::kn) {
  return AllScatterShape{m, n, k, gemm::DType::bf16, layout};
}

// The message of the symm::Error that make_plan throws ("" if it does not throw).
std::string refusal(const AllScatterShape& s, const GemmAllScatterOptions& o, int world,
                    int sms = kH200Sms) {
  try {
    make_plan(s, o, world, sms);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

GemmAllScatterOptions with_variant(ScatterVariant v) {
  GemmAllScatterOptions o;
  o.variant = v;
  return o;
}

TEST(GemmAllScatterPlan, VariantNamesRoundTrip) {
  for (ScatterVariant v : kScatterVariants) EXPECT_EQ(parse_variant(to_string(v)), v);
  EXPECT_FALSE(parse_variant("wg_specialisation"));
  EXPECT_FALSE(parse_variant(""));
}

TEST(GemmAllScatterPlan, RefusesShapesThatCannotBeScattered) {
  EXPECT_NE(validate(shape(8192, 4608, 36864), 5).find("not divisible by the 5 ranks"), std::string::npos);
  EXPECT_NE(validate(shape(8192, 4600, 36864), 2).find("multiple of 8"), std::string::npos);  // shard 2300
  EXPECT_NE(validate(shape(8192, 4608, 36860), 2).find("K=36860"), std::string::npos);
  EXPECT_NE(validate(shape(0, 4608, 36864), 2).find("M=0"), std::string::npos);
  EXPECT_NE(validate(shape(64, 4608, 64), 9).find("1 to 8"), std::string::npos);
  EXPECT_EQ(validate(shape(8192, 4608, 36864), 2), "");
  EXPECT_EQ(validate(shape(100, 48, 8), 2), "");  // ragged but describable
}

TEST(GemmAllScatterPlan, RefusesOptionsOutOfRange) {
  GemmAllScatterOptions o;
  o.gemm_sms = kH200Sms + 1;
  EXPECT_NE(validate(o, 2, kH200Sms).find("gemm_sms must be between 1 and the 132 SMs"), std::string::npos);
  o = {};
  o.comm_sms = -1;
  EXPECT_NE(validate(o, 2, kH200Sms).find("comm_sms"), std::string::npos);
  o = {};
  o.gsize_m = 0;
  EXPECT_NE(validate(o, 2, kH200Sms).find("gsize_m"), std::string::npos);
  o = {};
  o.loopback_peers = 1;
  EXPECT_NE(validate(o, 2, kH200Sms).find("needs 1 rank"), std::string::npos);
  EXPECT_EQ(validate(o, 1, kH200Sms), "");
  o.loopback_peers = kMaxWorld;
  EXPECT_NE(validate(o, 1, kH200Sms).find("loopback_peers"), std::string::npos);
  for (int bad : {-2, 2}) {
    o = {};
    o.split_tail = bad;
    EXPECT_NE(validate(o, 2, kH200Sms).find("split_tail must be -1"), std::string::npos) << bad;
  }
}

// The GEMM alone's plan for a shard with what the fused kernels launch (no clusters, no
// operand copies).
gemm::Plan gemm_alone_plan(const AllScatterShape& s, int world, int split_tail = -1) {
  static char placeholder alignas(256)[256];
  gemm::GemmProblem shard;
  shard.m = s.m, shard.n = s.n / world, shard.k = s.k, shard.lda = s.k, shard.ldc = s.n;
  shard.b_layout = s.b_layout;
  shard.ldb = s.b_layout == gemm::BLayout::kn ? shard.n : s.k;
  shard.a = shard.b = shard.c = placeholder;
  gemm::GemmOptions o;
  o.clusters = 0;
  o.operand_copies = false;
  o.split_tail = split_tail;
  return gemm::make_plan(shard, o, gemm::DeviceLimits{});
}

TEST(GemmAllScatterPlan, DefaultIsTmaPushOnEverySm) {
  const AllScatterPlan p = make_plan(shape(8192, 4608, 36864), {}, 2, kH200Sms);
  EXPECT_EQ(p.variant, ScatterVariant::tma_push);
  EXPECT_EQ(p.peers, 1);
  EXPECT_EQ(p.comm_sms, 0);
  EXPECT_FALSE(p.config.clustered());  // the fused kernels launch no clusters
  EXPECT_LE(p.gemm_sms, kH200Sms);
  EXPECT_EQ(p.tiles, (8192 + p.config.blk_m - 1) / p.config.blk_m * ((2304 + p.config.blk_n - 1) / p.config.blk_n));
  EXPECT_NE(describe(shape(8192, 4608, 36864), p).find("tma_push"), std::string::npos);
}

// tma_push (and the flag variants) cut the shard as the GEMM alone does: on Iris's long-K
// shards the last wave's tiles split along K, published by the units that finish them.
// fused_sequential computes whole tiles; split_tail=0 asks for them.
TEST(GemmAllScatterPlan, FusedPlansSplitTheLastWaveAsTheGemmAloneDoes) {
  const AllScatterShape s = shape(4096, 4608, 36864);
  const gemm::Plan alone = gemm_alone_plan(s, 2);
  ASSERT_GT(alone.sched.k_splits, 1) << "the premise: the GEMM alone splits the last wave";
  ASSERT_GT(alone.sched.dp_tiles, 0);
  const AllScatterPlan p = make_plan(s, {}, 2, kH200Sms);
  EXPECT_EQ(p.config, alone.config);
  EXPECT_EQ(gemm::decomposition(p.gemm.sched), gemm::decomposition(alone.sched));
  EXPECT_NE(describe(s, p).find("of the last"), std::string::npos) << describe(s, p);
  EXPECT_GT(gemm::workspace_bytes(p.gemm), 0u);

  GemmAllScatterOptions whole;
  whole.split_tail = 0;
  EXPECT_EQ(make_plan(s, whole, 2, kH200Sms).gemm.sched.k_splits, 1);
  const AllScatterPlan sequential = make_plan(s, with_variant(ScatterVariant::fused_sequential), 2, kH200Sms);
  EXPECT_EQ(sequential.gemm.sched.k_splits, 1);
  EXPECT_FALSE(sequential.gemm.sched.stream_k());

  GemmAllScatterOptions forced = with_variant(ScatterVariant::fused_sequential);
  forced.split_tail = 1;
  const std::string why = refusal(s, forced, 2);
  EXPECT_NE(why.find("fused_sequential computes whole tiles, so split_tail=1"), std::string::npos) << why;
  for (ScatterVariant v : {ScatterVariant::tma_push, ScatterVariant::wg_specialization,
                           ScatterVariant::producer_consumer}) {
    forced.variant = v;
    const AllScatterPlan split = make_plan(shape(8192, 4608, 18432), forced, 2, kH200Sms);
    EXPECT_GT(split.gemm.sched.k_splits, 1) << to_string(v);
    EXPECT_GT(split.gemm.sched.dp_tiles, 0) << to_string(v);
    EXPECT_FALSE(split.config.pingpong()) << to_string(v);  // ping-pong tiles stay whole
  }
}

// A small shard, where the GEMM alone runs 64x128 ping-pong tiles (a tile per block), which
// the fused kernels are not built for: the fused plan takes the best tile they are built
// for, and says so. (It once took the GEMM's choice and failed at launch.) Rows of whole
// 128-byte lines: on 1000^3's straddling rows the GEMM alone takes 128x128 tiles.
TEST(GemmAllScatterPlan, TakesTheBestTileTheFusedKernelsAreBuiltFor) {
  const AllScatterShape s = shape(1024, 2048, 1024);
  gemm::GemmOptions alone;
  alone.clusters = 0;
  alone.k_splits = 1;
  alone.operand_copies = false;
  gemm::DeviceLimits h200;
  gemm::GemmProblem shard;
  shard.m = 1024, shard.n = 1024, shard.k = 1024, shard.lda = 1024, shard.ldb = 1024, shard.ldc = 2048;
  shard.b_layout = gemm::BLayout::kn;  // as shape() lays B out
  static char placeholder alignas(256)[256];
  shard.a = shard.b = shard.c = placeholder;
  const gemm::KernelConfig small_tile{64, 128, 64, 8, gemm::Schedule::pingpong};
  ASSERT_EQ(gemm::make_plan(shard, alone, h200).config, small_tile) << "the premise: the GEMM alone's choice";
  const AllScatterPlan p = make_plan(s, {}, 2, kH200Sms);
  EXPECT_NE(p.config, small_tile);
  EXPECT_NE(p.gemm.reason.find("not built for"), std::string::npos) << p.gemm.reason;
  GemmAllScatterOptions forced;
  forced.config = p.config;
  EXPECT_NO_THROW(make_plan(s, forced, 2, kH200Sms));
}

TEST(GemmAllScatterPlan, PingpongTilesOnlyWithTmaPush) {
  const gemm::KernelConfig pingpong{128, 192, 64, 4, gemm::Schedule::pingpong};
  for (ScatterVariant v : kScatterVariants) {
    GemmAllScatterOptions o = with_variant(v);
    o.config = pingpong;
    if (v != ScatterVariant::tma_push && v != ScatterVariant::bulk_synchronous) {
      const std::string why = refusal(shape(8192, 4608, 36864), o, 2);
      EXPECT_NE(why.find("needs a cooperative configuration"), std::string::npos) << why;
      EXPECT_NE(why.find("128x192x64s4-pingpong"), std::string::npos) << why;
      o.config.reset();  // left to the planner: cooperative
      EXPECT_FALSE(make_plan(shape(8192, 4608, 36864), o, 2, kH200Sms).config.pingpong());
    } else {
      EXPECT_EQ(make_plan(shape(8192, 4608, 36864), o, 2, kH200Sms).config, pingpong) << to_string(v);
    }
  }
}

// Random shapes and options: every plan is one the kernels can run, or a refusal with a
// reason.
TEST(GemmAllScatterPlan, RandomProblemsPlanSoundlyOrAreRefused) {
  std::mt19937 rng(20261201);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int planned = 0, fused_split = 0;
  for (int i = 0; i < 3000; ++i) {
    const int world = pick(1, 9);
    const AllScatterShape s = shape(pick(0, 20000), 8 * pick(0, 3000), 8 * pick(0, 6000),
                                    pick(0, 1) ? gemm::BLayout::kn : gemm::BLayout::nk);
    GemmAllScatterOptions o;
    o.variant = kScatterVariants[pick(0, 4)];
    o.gemm_sms = pick(0, 3) == 0 ? pick(-2, 140) : 0;
    o.num_sms = pick(0, 3) == 0 ? pick(-2, 140) : 0;
    o.comm_sms = pick(0, 3) == 0 ? pick(-2, 140) : 0;
    o.gsize_m = pick(0, 12);
    o.split_tail = pick(0, 7) == 0 ? pick(-3, 3) : pick(-1, 1);
    const int sms = pick(0, 1) ? kH200Sms : pick(8, 140);
    try {
      const AllScatterPlan p = make_plan(s, o, world, sms);
      ++planned;
      ASSERT_EQ(validate(s, world), "");
      EXPECT_GE(p.gemm_sms, 1);
      EXPECT_LE(p.gemm_sms, sms);
      if (p.variant == ScatterVariant::fused_sequential) {
        EXPECT_EQ(p.gemm.sched.k_splits, 1);
        EXPECT_FALSE(p.gemm.sched.stream_k());
      }
      if (p.variant != ScatterVariant::bulk_synchronous) {
        EXPECT_FALSE(p.gemm.sched.stream_k());  // off, as for the GEMM alone
        EXPECT_FALSE(p.config.clustered());
        EXPECT_LE(p.gemm_sms, p.gemm.sched.num_units());
        fused_split += p.gemm.sched.k_splits > 1;
        // The fused kernels are built for the planned tile: forcing it plans the same.
        GemmAllScatterOptions forced = o;
        forced.config = p.config;
        EXPECT_NO_THROW(make_plan(s, forced, world, sms)) << gemm::to_string(p.config);
      }
      if (p.variant != ScatterVariant::tma_push && p.variant != ScatterVariant::bulk_synchronous) {
        EXPECT_FALSE(p.config.pingpong()) << to_string(p.variant);
      }
      if (p.variant == ScatterVariant::wg_specialization || p.variant == ScatterVariant::producer_consumer) {
        EXPECT_GE(p.comm_sms, 1);
        EXPECT_LE(p.gemm_sms + p.comm_sms, sms);
      }
      EXPECT_EQ(p.peers, world - 1);
    } catch (const Error& e) {
      EXPECT_GT(std::string(e.what()).size(), 30u) << "a refusal must say why";
    }
  }
  EXPECT_GT(planned, 500);  // the walk reaches valid plans, not only refusals
  EXPECT_GT(fused_split, 50) << "and fused plans that split tiles";
}

}  // namespace
}  // namespace symm::ops
