// GEMM + all-scatter planning without a GPU: every refusal names what was wrong, every
// plan made is one the kernels can run (tiles their hooks can publish, blocks that fit, no
// deadlock).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
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

// The GEMM alone's plan for a shard as tma_push takes it (any tile or cluster; no operand
// copies: the fused kernels read A and B in place).
gemm::Plan gemm_alone_plan(const AllScatterShape& s, int world, int split_tail = -1, int sms = kH200Sms,
                           int gsize_m = 8) {
  static char placeholder alignas(256)[256];
  gemm::GemmProblem shard;
  shard.m = s.m, shard.n = s.n / world, shard.k = s.k, shard.lda = s.k, shard.ldc = s.n;
  shard.b_layout = s.b_layout;
  shard.ldb = s.b_layout == gemm::BLayout::kn ? shard.n : s.k;
  shard.a = shard.b = shard.c = placeholder;
  gemm::GemmOptions o;
  o.operand_copies = false;
  o.split_tail = split_tail;
  o.gsize_m = gsize_m;
  gemm::DeviceLimits limits;
  limits.sm_count = sms;
  return gemm::make_plan(shard, o, limits);
}

TEST(GemmAllScatterPlan, DefaultIsTmaPushOnEverySm) {
  const AllScatterPlan p = make_plan(shape(8192, 4608, 36864), {}, 2, kH200Sms);
  EXPECT_EQ(p.variant, ScatterVariant::tma_push);
  EXPECT_EQ(p.peers, 1);
  EXPECT_EQ(p.comm_sms, 0);
  EXPECT_LE(p.gemm_sms, kH200Sms);
  EXPECT_EQ(p.tiles, (8192 + p.config.unit_rows() - 1) / p.config.unit_rows() *
                         ((2304 + p.config.unit_cols() - 1) / p.config.unit_cols()) * p.config.cluster_blocks());
  EXPECT_NE(describe(shape(8192, 4608, 36864), p).find("tma_push"), std::string::npos);
}

// The copy blocks' default count: Iris's (4 comm blocks of 132, 8 scatter blocks) where
// they keep pace with the GEMM, more where K is short (the GEMM makes C faster than four
// blocks copy it), and more again for more peers; never over half the SMs. A count given
// is taken as given.
TEST(GemmAllScatterPlan, CopyBlocksKeepPaceWithTheGemmByDefault) {
  const auto wg = with_variant(ScatterVariant::wg_specialization);
  const auto pc = with_variant(ScatterVariant::producer_consumer);
  for (std::int64_t k : {18432, 36864}) {  // Iris's shards
    const AllScatterPlan p = make_plan(shape(8192, 4608, k), wg, 2, kH200Sms);
    EXPECT_EQ(p.gemm_sms, 128) << "K=" << k;
    EXPECT_EQ(p.comm_sms, 4) << "K=" << k;
    EXPECT_EQ(describe(shape(8192, 4608, k), p).find("copy blocks where"), std::string::npos) << "Iris's own count";
    EXPECT_EQ(make_plan(shape(8192, 4608, k), pc, 2, kH200Sms).comm_sms, 8) << "K=" << k;
  }
  int last = 0;
  for (std::int64_t k : {8192, 4096, 2048, 1024}) {  // shorter K: C is made faster
    const AllScatterPlan p = make_plan(shape(2048, 8192, k), wg, 2, kH200Sms);
    EXPECT_GT(p.comm_sms, 4) << "K=" << k;
    EXPECT_GE(p.comm_sms, last) << "K=" << k;
    EXPECT_LE(p.comm_sms, kH200Sms / 2) << "K=" << k;
    EXPECT_EQ(p.gemm_sms + p.comm_sms, kH200Sms) << "K=" << k;
    EXPECT_EQ(make_plan(shape(2048, 8192, k), pc, 2, kH200Sms).comm_sms, std::max(8, p.comm_sms)) << "K=" << k;
    EXPECT_NE(describe(shape(2048, 8192, k), p).find(fmt::format("{} copy blocks where Iris's default has 4", p.comm_sms)),
              std::string::npos)
        << describe(shape(2048, 8192, k), p);
    last = p.comm_sms;
  }
  EXPECT_GT(make_plan(shape(2048, 8192, 2048), wg, 8, kH200Sms).comm_sms,
            make_plan(shape(2048, 8192, 2048), wg, 2, kH200Sms).comm_sms)
      << "seven peers to copy to, a quarter of the shard each";
  EXPECT_EQ(make_plan(shape(64, 64, 64), wg, 2, kH200Sms).comm_sms, kH200Sms / 2) << "at most half the SMs";
  GemmAllScatterOptions given = wg;
  given.gemm_sms = 128;
  EXPECT_EQ(make_plan(shape(2048, 8192, 1024), given, 2, kH200Sms).comm_sms, 4);
  given = pc;
  given.comm_sms = 8;
  EXPECT_EQ(make_plan(shape(2048, 8192, 1024), given, 2, kH200Sms).comm_sms, 8);
  given = pc;
  given.gemm_sms = 120;  // the scatter kernel takes at most what the GEMM leaves, at least Iris's 8
  EXPECT_EQ(make_plan(shape(2048, 8192, 1024), given, 2, kH200Sms).comm_sms, 12);
  given.gemm_sms = 126;
  EXPECT_NE(refusal(shape(2048, 8192, 1024), given, 2).find("together they must fit the 132 SMs"), std::string::npos);
}

// Into loopback buffers (one rank, the one-GPU proxy) copying during the GEMM gains little:
// the copy blocks are the 1 to 8 whose GEMM on the other SMs is predicted fastest, the
// most of those that tie. 2000 x 4000 x 3000 (B K x N): 128 blocks run its 256 tiles of
// 128x256 in two waves, and so do 129-131; fewer blocks need a third.
TEST(GemmAllScatterPlan, LoopbackCopyBlocksAreWhatTheGemmsWavesSpare) {
  for (ScatterVariant v : {ScatterVariant::wg_specialization, ScatterVariant::producer_consumer}) {
    GemmAllScatterOptions o = with_variant(v);
    o.loopback_peers = 1;
    AllScatterShape s = shape(2000, 4000, 3000);
    s.b_layout = gemm::BLayout::kn;
    const AllScatterPlan p = make_plan(s, o, 1, kH200Sms);
    EXPECT_EQ(p.comm_sms, 4) << to_string(v) << ": " << describe(s, p);
    EXPECT_EQ(p.gemm_sms, 128) << to_string(v);
    EXPECT_EQ(p.config.blk_n, 256) << to_string(v);
    EXPECT_NE(describe(s, p).find("4 copy blocks: into loopback buffers"), std::string::npos) << describe(s, p);
    for (std::int64_t k : {1024, 4096, 36864}) {
      const AllScatterPlan q = make_plan(shape(8192, 4608, k), o, 1, kH200Sms);
      EXPECT_GE(q.comm_sms, 1) << to_string(v) << " K=" << k;
      EXPECT_LE(q.comm_sms, 8) << to_string(v) << " K=" << k << ": not sized to keep pace";
    }
  }
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

// tma_push runs the plan our GEMM alone runs, whatever its tile: a 64x128 ping-pong tile
// in 2 x 1 clusters on a small shard, a swapped tile on 776 rows, 192-column swapped tiles
// of three consumers on 777, 256x160 in 1 x 2 clusters.
TEST(GemmAllScatterPlan, TmaPushRunsTheGemmAlonesPlan) {
  for (const AllScatterShape& s : {shape(1024, 2048, 1024), shape(776, 8192, 8192, gemm::BLayout::nk),
                                   shape(777, 8208, 8200, gemm::BLayout::nk), shape(6120, 6800, 4104, gemm::BLayout::nk),
                                   shape(3000, 10000, 2008)}) {
    const gemm::Plan alone = gemm_alone_plan(s, 2);
    const AllScatterPlan p = make_plan(s, {}, 2, kH200Sms);
    EXPECT_EQ(p.config, alone.config) << gemm::to_string(p.config) << " vs " << gemm::to_string(alone.config);
    EXPECT_EQ(gemm::decomposition(p.gemm.sched), gemm::decomposition(alone.sched));
    EXPECT_EQ(p.gemm_sms, alone.num_blocks);
    EXPECT_EQ(p.tiles, alone.sched.num_tiles() * alone.config.cluster_blocks());
  }
  // The premises: those shapes reach each kind of tile the other variants lack.
  EXPECT_TRUE(make_plan(shape(1024, 2048, 1024), {}, 2, kH200Sms).config.clustered());
  EXPECT_TRUE(make_plan(shape(776, 8192, 8192, gemm::BLayout::nk), {}, 2, kH200Sms).config.swapped());
  EXPECT_EQ(make_plan(shape(777, 8208, 8200, gemm::BLayout::nk), {}, 2, kH200Sms).config.consumers(), 3);
}

// The plan takes the GPU's limits as the GEMM alone does: 2 x 2 clusters get no more blocks
// than the clusters of 4 that fit at once (120 on an H200; here a GPU with room for 60).
TEST(GemmAllScatterPlan, ClustersFitTheGpusLimits) {
  GemmAllScatterOptions o;
  o.config = gemm::KernelConfig{128, 256, 64, 4, gemm::Schedule::cooperative, 2, 2};
  for (const int quad_blocks : {120, 60}) {
    gemm::DeviceLimits limits;
    limits.quad_cluster_blocks = quad_blocks;
    const AllScatterPlan p = make_plan(shape(8192, 8192, 4096), o, 2, limits);
    EXPECT_EQ(p.config, *o.config);
    EXPECT_EQ(p.gemm_sms, quad_blocks) << "every cluster of 4 that fits, and no more";
  }
}

// Where the GEMM alone runs a tile the flag and copy variants are not built for (a swapped
// tile on 776 rows; 192x160 of three consumers), they take the best tile they are built
// for and say so. (One once took the GEMM's choice and failed at launch.)
TEST(GemmAllScatterPlan, FlagAndCopyVariantsTakeTheBestTileTheyAreBuiltFor) {
  for (const AllScatterShape& s : {shape(776, 8192, 8192, gemm::BLayout::nk), shape(6120, 6800, 4104, gemm::BLayout::nk)})
    for (ScatterVariant v : {ScatterVariant::wg_specialization, ScatterVariant::producer_consumer,
                             ScatterVariant::fused_sequential}) {
      GemmAllScatterOptions o = with_variant(v);
      if (v == ScatterVariant::wg_specialization) o.gemm_sms = 128;  // on which the GEMM alone would not
      const AllScatterPlan p = make_plan(s, o, 2, kH200Sms);
      EXPECT_EQ(p.config.schedule, gemm::Schedule::cooperative) << to_string(v);
      EXPECT_FALSE(p.config.clustered()) << to_string(v);
      EXPECT_EQ(p.config.consumers(), gemm::kConsumers) << to_string(v);
      if (v == ScatterVariant::wg_specialization) {
        EXPECT_NE(p.gemm.reason.find("which wg_specialization is not built for"), std::string::npos) << p.gemm.reason;
      }
      GemmAllScatterOptions forced = o;
      forced.config = p.config;
      EXPECT_NO_THROW(make_plan(s, forced, 2, kH200Sms)) << to_string(v);
    }
}

// Ping-pong, swapped and clustered tiles run under tma_push only; the others refuse them
// naming the configuration and what they run.
TEST(GemmAllScatterPlan, PingpongSwappedAndClusteredTilesOnlyWithTmaPush) {
  const gemm::KernelConfig tiles[] = {{128, 192, 64, 4, gemm::Schedule::pingpong},
                                      {200, 128, 64, 4, gemm::Schedule::swapped},
                                      {128, 256, 64, 4, gemm::Schedule::cooperative, 2, 2},
                                      {192, 160, 64, 4}};
  for (const gemm::KernelConfig& config : tiles)
    for (ScatterVariant v : kScatterVariants) {
      GemmAllScatterOptions o = with_variant(v);
      o.config = config;
      if (v != ScatterVariant::tma_push && v != ScatterVariant::bulk_synchronous) {
        const std::string why = refusal(shape(8192, 4608, 36864), o, 2);
        EXPECT_NE(why.find(gemm::to_string(config) + " is not built for " + std::string(to_string(v))),
                  std::string::npos) << why;
        EXPECT_NE(why.find("tma_push runs every configuration"), std::string::npos) << why;
        o.config.reset();  // left to the planner: a tile the variant runs
        const gemm::KernelConfig planned = make_plan(shape(8192, 4608, 36864), o, 2, kH200Sms).config;
        EXPECT_TRUE(planned.schedule == gemm::Schedule::cooperative && !planned.clustered()) << gemm::to_string(planned);
      } else {
        EXPECT_EQ(make_plan(shape(8192, 4608, 36864), o, 2, kH200Sms).config, config) << to_string(v);
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
    std::optional<AllScatterPlan> plan;
    std::string refusal;
    try {
      plan = make_plan(s, o, world, sms);
    } catch (const Error& e) {
      refusal = e.what();
    }
    if (!plan) {
      EXPECT_GT(refusal.size(), 30u) << "a refusal must say why";
      // A shape that can be scattered, with every knob at its default, must be planned.
      // (A forced split, split_tail 1, is refused to fused_sequential, which never splits.)
      const bool defaults = o.gemm_sms == 0 && o.num_sms == 0 && o.comm_sms == 0 && o.gsize_m >= 1 &&
                            o.split_tail >= -1 &&
                            o.split_tail <= (o.variant == ScatterVariant::fused_sequential ? 0 : 1);
      EXPECT_FALSE(validate(s, world).empty() && defaults)
          << "refused " << s.m << " x " << s.n << " x " << s.k << " on " << world << " ranks of " << sms
          << " SMs, " << to_string(*o.variant) << ", with default knobs: " << refusal;
      continue;
    }
    {
      const AllScatterPlan& p = *plan;
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
        EXPECT_LE(p.gemm_sms, p.gemm.sched.num_units() * p.config.cluster_blocks());
        EXPECT_EQ(p.gemm_sms % p.config.cluster_blocks(), 0);
        fused_split += p.gemm.sched.k_splits > 1;
        // The fused kernels are built for the planned tile: forcing it plans the same.
        GemmAllScatterOptions forced = o;
        forced.config = p.config;
        EXPECT_NO_THROW(make_plan(s, forced, world, sms)) << gemm::to_string(p.config);
      }
      if (p.variant != ScatterVariant::tma_push && p.variant != ScatterVariant::bulk_synchronous) {
        EXPECT_EQ(p.config.schedule, gemm::Schedule::cooperative) << to_string(p.variant);
        EXPECT_FALSE(p.config.clustered()) << to_string(p.variant);
        EXPECT_EQ(p.config.consumers(), gemm::kConsumers) << to_string(p.variant);
      }
      if (p.variant == ScatterVariant::tma_push && o.gemm_sms == 0) {  // the GEMM alone's plan
        const gemm::Plan alone = gemm_alone_plan(s, world, o.split_tail, sms, o.gsize_m);
        EXPECT_EQ(p.config, alone.config);
        EXPECT_EQ(p.gemm_sms, alone.num_blocks);
      }
      if (p.variant == ScatterVariant::wg_specialization || p.variant == ScatterVariant::producer_consumer) {
        EXPECT_GE(p.comm_sms, 1);
        EXPECT_LE(p.gemm_sms + p.comm_sms, sms);
      }
      EXPECT_EQ(p.peers, world - 1);
    }
  }
  EXPECT_GT(planned, 500);  // the walk reaches valid plans, not only refusals
  EXPECT_GT(fused_split, 50) << "and fused plans that split tiles";
}

}  // namespace
}  // namespace symm::ops
