// GEMM + all-scatter planning without a GPU: every refusal names what was wrong, every
// plan made is one the kernels can run (whole tiles, blocks that fit, no deadlock).
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
}

TEST(GemmAllScatterPlan, DefaultIsTmaPushOnWholeTilesOfEverySm) {
  const AllScatterPlan p = make_plan(shape(8192, 4608, 36864), {}, 2, kH200Sms);
  EXPECT_EQ(p.variant, ScatterVariant::tma_push);
  EXPECT_EQ(p.peers, 1);
  EXPECT_EQ(p.comm_sms, 0);
  EXPECT_EQ(p.gemm.sched.k_splits, 1);
  EXPECT_FALSE(p.gemm.sched.stream_k());
  EXPECT_FALSE(p.config.clustered());  // the fused kernels launch no clusters
  EXPECT_LE(p.gemm_sms, kH200Sms);
  EXPECT_EQ(p.tiles, (8192 + p.config.blk_m - 1) / p.config.blk_m * ((2304 + p.config.blk_n - 1) / p.config.blk_n));
  EXPECT_NE(describe(shape(8192, 4608, 36864), p).find("tma_push"), std::string::npos);
}

TEST(GemmAllScatterPlan, WgSpecializationKeepsBlocksToPushTiles) {
  // Iris's defaults: gemm_sms the largest power of two below num_sms.
  const AllScatterPlan p = make_plan(shape(8192, 4608, 36864), with_variant(ScatterVariant::wg_specialization), 2,
                                     kH200Sms);
  EXPECT_EQ(p.gemm_sms, 128);
  EXPECT_EQ(p.comm_sms, 4);
  // The Iris example-10 deadlock: no block left to push the tiles.
  GemmAllScatterOptions o = with_variant(ScatterVariant::wg_specialization);
  o.gemm_sms = kH200Sms;
  EXPECT_NE(refusal(shape(8192, 4608, 36864), o, 2).find("below num_sms"), std::string::npos);
  o.num_sms = 64;
  o.gemm_sms = 64;
  EXPECT_NE(refusal(shape(8192, 4608, 36864), o, 2).find("below num_sms (64)"), std::string::npos);
  o.gemm_sms = 60;
  const AllScatterPlan q = make_plan(shape(8192, 4608, 36864), o, 2, kH200Sms);
  EXPECT_EQ(q.gemm_sms + q.comm_sms, 64);
  o = with_variant(ScatterVariant::wg_specialization);
  o.num_sms = 1;
  EXPECT_NE(refusal(shape(8192, 4608, 36864), o, 2).find("num_sms >= 2"), std::string::npos);
}

TEST(GemmAllScatterPlan, ProducerConsumerKernelsMustFitTogether) {
  GemmAllScatterOptions o = with_variant(ScatterVariant::producer_consumer);
  const AllScatterPlan p = make_plan(shape(8192, 4608, 36864), o, 2, kH200Sms);
  EXPECT_LE(p.gemm_sms + p.comm_sms, kH200Sms);
  EXPECT_GT(p.comm_sms, 0);
  o.gemm_sms = 128;
  o.comm_sms = 8;
  EXPECT_NE(refusal(shape(8192, 4608, 36864), o, 2).find("must fit the 132 SMs"), std::string::npos);
}

TEST(GemmAllScatterPlan, RefusesConfigurationsNotBuiltForFusedKernels) {
  GemmAllScatterOptions o;
  o.config = gemm::KernelConfig{64, 128, 64, 8, gemm::Schedule::pingpong};  // GEMM only
  EXPECT_NE(refusal(shape(8192, 4608, 36864), o, 2).find("not built for the fused kernels"), std::string::npos);
  o.config = gemm::KernelConfig{128, 256, 64, 4, gemm::Schedule::cooperative, 2};  // clusters: GEMM only
  EXPECT_NE(refusal(shape(8192, 4608, 36864), o, 2).find("not built for the fused kernels"), std::string::npos);
  o.config = gemm::KernelConfig{128, 144, 64, 5};  // either layout of B (a K x N B's last 16 columns in a box of their own)
  EXPECT_EQ(refusal(shape(8192, 4608, 36864), o, 2), "");
  EXPECT_EQ(refusal(shape(8192, 4608, 36864, gemm::BLayout::nk), o, 2), "");
  o.config = gemm::KernelConfig{999, 1, 1, 1};
  EXPECT_NE(refusal(shape(8192, 4608, 36864), o, 2).find("999x1x1s1"), std::string::npos);
  for (auto c : {gemm::KernelConfig{128, 128, 64, 2}, gemm::KernelConfig{256, 64, 64, 3},
                 gemm::KernelConfig{256, 128, 64, 2}}) {
    o.config = c;
    EXPECT_EQ(make_plan(shape(8192, 4608, 36864), o, 2, kH200Sms).config, c);
  }
}

// Ping-pong tiles run fused with tma_push only (and in bulk_synchronous's plain GEMM).
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
  int planned = 0;
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
    const int sms = pick(0, 1) ? kH200Sms : pick(8, 140);
    try {
      const AllScatterPlan p = make_plan(s, o, world, sms);
      ++planned;
      ASSERT_EQ(validate(s, world), "");
      EXPECT_GE(p.gemm_sms, 1);
      EXPECT_LE(p.gemm_sms, sms);
      if (p.variant != ScatterVariant::bulk_synchronous) {
        EXPECT_EQ(p.gemm.sched.k_splits, 1);
        EXPECT_FALSE(p.config.clustered());
        EXPECT_LE(p.gemm_sms, p.tiles);
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
}

}  // namespace
}  // namespace symm::ops
