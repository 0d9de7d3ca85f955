// GEMM + all-scatter on ranks sharing one GPU (they take turns: correctness only).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "all_scatter_ranks.hpp"
#include "scoped_env.hpp"

namespace symm::ops {
// ctest names each case after what gtest prints of its parameter: the name, not the byte.
void PrintTo(ScatterVariant v, std::ostream* os) { *os << to_string(v); }
}  // namespace symm::ops

namespace symm::test {
namespace {

using ops::ScatterVariant;

// Ragged on purpose: M, the shard width and K are not multiples of any tile.
ops::AllScatterShape ragged(int world, gemm::DType dtype = gemm::DType::bf16,
                            gemm::BLayout layout = gemm::BLayout::kn) {
  return ops::AllScatterShape{300, 264 * std::int64_t(world), 520, dtype, layout};
}

ScatterCase variant_case(ScatterVariant v, int world, int iterations = 2, bool graph = false) {
  ScatterCase c;
  c.shape = ragged(world);
  c.options.variant = v;
  c.iterations = iterations;
  c.graph = graph;
  return c;
}

class EveryVariant : public ::testing::TestWithParam<ScatterVariant> {};

TEST_P(EveryVariant, EveryRankHoldsEveryShardBitExactOnTwoRanks) {
  SYMM_REQUIRE_GPUS(1);
  EXPECT_EQ(run_on_ranks(2, [](Runtime& rt) { return all_scatter_matches_gemm_alone(rt, variant_case(GetParam(), 2)); }), 0);
}

TEST_P(EveryVariant, EveryRankHoldsEveryShardBitExactOnThreeRanksFp16NxK) {
  SYMM_REQUIRE_GPUS(1);
  ScatterCase c = variant_case(GetParam(), 3);
  c.shape = ragged(3, gemm::DType::fp16, gemm::BLayout::nk);
  EXPECT_EQ(run_on_ranks(3, [&](Runtime& rt) { return all_scatter_matches_gemm_alone(rt, c); }), 0);
}

// Stale flags: 200 runs back to back, validated after every one; inputs alternate so a
// tile left from the run before cannot pass.
TEST_P(EveryVariant, TwoHundredRunsNeverReadAStaleFlag) {
  SYMM_REQUIRE_GPUS(1);
  EXPECT_EQ(run_on_ranks(2, [](Runtime& rt) { return all_scatter_matches_gemm_alone(rt, variant_case(GetParam(), 2, 200)); }), 0);
}

// The same through CUDA graphs captured once: the epochs advance in device memory.
TEST_P(EveryVariant, TwoHundredGraphReplaysNeverReadAStaleFlag) {
  SYMM_REQUIRE_GPUS(1);
  EXPECT_EQ(run_on_ranks(2, [](Runtime& rt) { return all_scatter_matches_gemm_alone(rt, variant_case(GetParam(), 2, 200, true)); }), 0);
}

TEST_P(EveryVariant, ATracedRunRecordsEveryTileOnTwoRanks) {
  SYMM_REQUIRE_GPUS(1);
  ops::GemmAllScatterOptions o;
  o.variant = GetParam();
  EXPECT_EQ(run_on_ranks(2, [&](Runtime& rt) { return traced_run_covers_every_tile(rt, o); }), 0);
}

INSTANTIATE_TEST_SUITE_P(GemmAllScatter, EveryVariant, ::testing::ValuesIn(ops::kScatterVariants),
                         [](const auto& info) { return std::string(ops::to_string(info.param)); });

class EveryWorld : public ::testing::TestWithParam<int> {};

TEST_P(EveryWorld, DefaultPlanAndWgSpecializationScatterOnOneGpu) {
  SYMM_REQUIRE_GPUS(1);
  const int world = GetParam();
  for (auto v : {std::optional<ScatterVariant>{}, std::optional{ScatterVariant::wg_specialization}}) {
    ScatterCase c;
    c.shape = ragged(world);
    c.options.variant = v;
    EXPECT_EQ(run_on_ranks(world, [&](Runtime& rt) { return all_scatter_matches_gemm_alone(rt, c); }), 0)
        << (v ? ops::to_string(*v) : "default plan");
  }
}

INSTANTIATE_TEST_SUITE_P(GemmAllScatter, EveryWorld, ::testing::Values(1, 2, 4, 8));

// Random block counts, group sizes and tile shapes: the tile order the copiers claim
// must match the GEMM blocks' whatever the schedule.
TEST(GemmAllScatter, RandomSchedulesStillDeliverEveryTile) {
  SYMM_REQUIRE_GPUS(1);
  const gemm::KernelConfig configs[] = {{128, 128, 64, 2}, {256, 64, 64, 3}, {128, 256, 64, 4}, {256, 128, 64, 4}};
  std::srand(20261201);
  for (int i = 0; i < 6; ++i) {
    ScatterCase c = variant_case(i % 2 ? ScatterVariant::wg_specialization : ScatterVariant::producer_consumer, 2);
    c.options.config = configs[std::rand() % 4];
    c.options.gsize_m = 1 + std::rand() % 8;
    c.options.gemm_sms = 1 + std::rand() % 16;
    c.options.num_sms = c.options.gemm_sms + 1 + std::rand() % 8;
    c.options.comm_sms = 1 + std::rand() % 8;
    EXPECT_EQ(run_on_ranks(2, [&](Runtime& rt) { return all_scatter_matches_gemm_alone(rt, c); }), 0)
        << gemm::to_string(*c.options.config) << " gsize_m " << c.options.gsize_m << " gemm_sms "
        << c.options.gemm_sms << " num_sms " << c.options.num_sms << " comm_sms " << c.options.comm_sms;
  }
}

// Copy blocks far ahead of a slow GEMM (two GEMM blocks, eight copy blocks, long K): with
// pieces of one tile in flight, each must still see the next tile's flags before it loads
// that tile (unpublished, the local C holds the poison of the run before).
TEST(GemmAllScatter, CopyBlocksAheadOfASlowGemmWaitForEveryTile) {
  SYMM_REQUIRE_GPUS(1);
  for (ScatterVariant v : {ScatterVariant::wg_specialization, ScatterVariant::producer_consumer}) {
    ScatterCase c = variant_case(v, 2);
    c.shape = ops::AllScatterShape{1024, 2 * 1024, 8192, gemm::DType::bf16, gemm::BLayout::nk};
    c.options.config = gemm::KernelConfig{128, 128, 64, 6};
    c.options.gemm_sms = 2;
    c.options.num_sms = 10;  // wg_specialization: 8 comm blocks
    c.options.comm_sms = 8;  // producer_consumer: 8 scatter blocks
    EXPECT_EQ(run_on_ranks(2, [&](Runtime& rt) { return all_scatter_matches_gemm_alone(rt, c); }), 0)
        << ops::to_string(v);
  }
}

// Ping-pong tiles under tma_push: one consumer stores and pushes a whole tile while the
// other multiplies; both layouts (a 128x160 tile reads a K x N B's last 32 columns in a
// box of their own), three ranks on ragged shards and a loopback run.
TEST(GemmAllScatter, PingpongTilesPushEveryTile) {
  SYMM_REQUIRE_GPUS(1);
  const gemm::KernelConfig pingpong[] = {{128, 192, 64, 4, gemm::Schedule::pingpong},
                                         {128, 160, 64, 5, gemm::Schedule::pingpong},
                                         {64, 256, 64, 4, gemm::Schedule::pingpong}};
  for (const gemm::KernelConfig& config : pingpong)
    for (gemm::BLayout layout : {gemm::BLayout::nk, gemm::BLayout::kn}) {
      const std::string what = gemm::to_string(config) + " B " + std::string(gemm::to_string(layout));
      ScatterCase c = variant_case(ScatterVariant::tma_push, 3, 3);
      c.shape = ragged(3, gemm::DType::fp16, layout);
      c.options.config = config;
      EXPECT_EQ(run_on_ranks(3, [&](Runtime& rt) { return all_scatter_matches_gemm_alone(rt, c); }), 0) << what;
      ScatterCase loop = variant_case(ScatterVariant::tma_push, 1);
      loop.shape = ops::AllScatterShape{1000, 776, 1032, gemm::DType::bf16, layout};
      loop.options.config = config;
      loop.options.loopback_peers = 2;
      EXPECT_EQ(run_on_ranks(1, [&](Runtime& rt) { return all_scatter_matches_gemm_alone(rt, loop); }), 0)
          << what << ", loopback";
    }
}

// tma_push runs every configuration of the GEMM: here those the other variants are not
// built for. Swapped tiles (B as the wgmma's A, parts stored transposed, a last piece of
// fewer rows), three consumers, clusters whose units reach past M or N, ping-pong in
// clusters; both layouts of B, three ranks on ragged shards and a loopback run.
std::vector<gemm::KernelConfig> push_only_configs() {
  std::vector<gemm::KernelConfig> configs;
  for (const gemm::KernelConfig& c : gemm::kWgmmaConfigs)
    if (c.clustered() || c.swapped() || c.consumers() != gemm::kConsumers ||
        c == gemm::KernelConfig{64, 128, 64, 8, gemm::Schedule::pingpong} || c == gemm::KernelConfig{256, 160, 64, 4})
      configs.push_back(c);
  return configs;
}

class EveryPushOnlyConfig : public ::testing::TestWithParam<gemm::KernelConfig> {};

TEST_P(EveryPushOnlyConfig, TmaPushDeliversEveryTile) {
  SYMM_REQUIRE_GPUS(1);
  for (gemm::BLayout layout : {gemm::BLayout::nk, gemm::BLayout::kn}) {
    const std::string what = gemm::to_string(GetParam()) + " B " + std::string(gemm::to_string(layout));
    ScatterCase c = variant_case(ScatterVariant::tma_push, 3, 2);
    c.shape = ragged(3, gemm::DType::fp16, layout);
    c.options.config = GetParam();
    EXPECT_EQ(run_on_ranks(3, [&](Runtime& rt) { return all_scatter_matches_gemm_alone(rt, c); }), 0) << what;
    ScatterCase loop = variant_case(ScatterVariant::tma_push, 1);
    loop.shape = ops::AllScatterShape{1000, 776, 1032, gemm::DType::bf16, layout};
    loop.options.config = GetParam();
    loop.options.loopback_peers = 2;
    EXPECT_EQ(run_on_ranks(1, [&](Runtime& rt) { return all_scatter_matches_gemm_alone(rt, loop); }), 0)
        << what << ", loopback";
  }
}

INSTANTIATE_TEST_SUITE_P(GemmAllScatter, EveryPushOnlyConfig, ::testing::ValuesIn(push_only_configs()),
                         [](const auto& info) {
                           std::string name = gemm::to_string(info.param);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// A traced run in clusters of three-consumer swapped tiles (some of a unit's tiles past M):
// each tile inside C recorded once per consumer, none past it.
TEST(GemmAllScatter, ATracedRunInClustersRecordsEveryTileInsideC) {
  SYMM_REQUIRE_GPUS(1);
  const gemm::KernelConfig config{144, 192, 64, 4, gemm::Schedule::swapped, 2, 1};
  ops::GemmAllScatterOptions o;
  o.variant = ScatterVariant::tma_push;
  o.config = config;
  EXPECT_EQ(run_on_ranks(2, [&](Runtime& rt) { return traced_run_covers_every_tile(rt, o); }), 0);
}

// One copy block beside 32 GEMM blocks: the GEMM is done long before one block could copy
// every tile, so GEMM blocks must push tiles once their own are done; each tile once.
TEST(GemmAllScatter, GemmBlocksJoinThePushOnceTheirTilesAreDone) {
  SYMM_REQUIRE_GPUS(1);
  for (ScatterVariant v : {ScatterVariant::wg_specialization, ScatterVariant::producer_consumer}) {
    ops::GemmAllScatterOptions o;
    o.variant = v;
    o.gemm_sms = 32;
    o.num_sms = 33;   // wg_specialization: one comm block
    o.comm_sms = 1;   // producer_consumer: one scatter block
    EXPECT_EQ(run_on_ranks(2, [&](Runtime& rt) { return traced_run_covers_every_tile(rt, o, true); }), 0)
        << ops::to_string(v);
  }
}

// The one-GPU proxy of the push path: a loopback buffer receives every tile too.
TEST(GemmAllScatter, LoopbackPeersReceiveEveryTile) {
  SYMM_REQUIRE_GPUS(1);
  for (ScatterVariant v : ops::kScatterVariants) {
    ScatterCase c = variant_case(v, 1);
    c.options.loopback_peers = 2;
    EXPECT_EQ(run_on_ranks(1, [&](Runtime& rt) { return all_scatter_matches_gemm_alone(rt, c); }), 0)
        << ops::to_string(v);
  }
}

// Copiers that reuse every slot of their ring several times while the loads outrun the
// stores: the other tests give each copier a few pieces, which lap its 6-8 slots once at
// most, and then behind a slow GEMM. 2048 pieces of 32 KB (8192 x 4096,
// K = 64: the GEMM is done at once) over 132 blocks, each piece stored to 7 loopback
// peers, so the stores are slower than the loads and the loader waits for slots: a slot
// refilled before its stores have read it would give the peers another piece's rows.
TEST(GemmAllScatter, CopiersLapTheirRingWithSevenPeers) {
  SYMM_REQUIRE_GPUS(1);
  for (ScatterVariant v : {ScatterVariant::bulk_synchronous, ScatterVariant::wg_specialization}) {
    ScatterCase c = variant_case(v, 1, 2);
    c.shape = ops::AllScatterShape{8192, 4096, 64, gemm::DType::bf16, gemm::BLayout::nk};
    c.options.config = gemm::KernelConfig{128, 256, 64, 4};
    c.options.loopback_peers = ops::kMaxWorld - 1;
    // 8 copies of the 64 MB C and two input sets' references: more than the tests' default heap.
    constexpr std::size_t kHeapBytes = std::size_t{1} << 30;
    EXPECT_EQ(run_on_ranks(1, [&](Runtime& rt) { return all_scatter_matches_gemm_alone(rt, c); }, kHeapBytes), 0)
        << ops::to_string(v);
  }
}

// Tiles split along K are published by the unit that finishes them: the forced last wave
// split on few blocks (9 tiles on 4 blocks: the ninth split), and the heuristic's split-K
// of a small long-K shard (8 tiles of 128 K iterations on every SM). Three runs per
// workspace: a counter left set by a finishing unit fails the next.
TEST(GemmAllScatter, SplitTilesArePublishedByTheUnitThatFinishesThem) {
  SYMM_REQUIRE_GPUS(1);
  for (ScatterVariant v : {ScatterVariant::tma_push, ScatterVariant::wg_specialization,
                           ScatterVariant::producer_consumer}) {
    ScatterCase tail = variant_case(v, 2, 3);
    tail.shape.k = 1032;  // 17 K iterations: room for two splits of 8
    tail.options.config = gemm::KernelConfig{128, 128, 64, 2};
    tail.options.split_tail = 1;
    tail.options.gemm_sms = 4;
    tail.options.num_sms = 6;
    tail.options.comm_sms = 2;
    ScatterCase long_k = variant_case(v, 2, 3, v == ScatterVariant::tma_push);
    long_k.shape = ops::AllScatterShape{256, 2 * 512, 8192, gemm::DType::fp16, gemm::BLayout::nk};
    for (const ScatterCase* c : {&tail, &long_k}) {
      // The ranks plan (this process must not touch CUDA before they fork).
      const int code = run_on_ranks(2, [&](Runtime& rt) {
        const ops::AllScatterPlan plan = ops::make_plan(c->shape, c->options, rt.world(), rt.sm_count());
        if (plan.gemm.sched.k_splits < 2) {
          std::fprintf(stderr, "the premise failed, a plan that splits tiles: %s\n",
                       ops::describe(c->shape, plan).c_str());
          return 4;
        }
        return all_scatter_matches_gemm_alone(rt, *c);
      });
      EXPECT_EQ(code, 0) << ops::to_string(v) << (c == &tail ? ", forced last wave split" : ", long K");
    }
  }
}

// Sets an environment variable for the ranks of one test (they inherit it).
TEST(GemmAllScatterFailures, ACommWaitOutOfBudgetEndsTheRunWithItsDiagnostic) {
  SYMM_REQUIRE_GPUS(1);
  ScopedEnv budget("SYMM_WAIT_TIMEOUT_MS", "1");
  const CapturedRun run = run_on_ranks_captured(1, comm_wait_times_out, std::size_t{1} << 30);
  ASSERT_EQ(run.exit_code, 3) << run.output[0];
  const std::string& out = run.output[0];
  EXPECT_NE(out.find("timed out waiting for tile"), std::string::npos) << out;
  EXPECT_NE(out.find("expected >= 1"), std::string::npos) << out;
  EXPECT_NE(out.find("rank 0 block 1"), std::string::npos) << out;  // block 0 computes, block 1 pushes
  // The wait ended near its 1 ms budget, far below the 10 s default.
  const auto after = out.find(" after ");
  ASSERT_NE(after, std::string::npos) << out;
  EXPECT_LT(std::stoi(out.substr(after + 7)), 50) << out;
}

TEST(GemmAllScatterFailures, OperandsOverlappingCAreRefusedBeforeAnyLaunch) {
  SYMM_REQUIRE_GPUS(1);
  const CapturedRun run = run_on_ranks_captured(1, operands_overlapping_c_are_refused);
  EXPECT_EQ(run.exit_code, 0) << run.output[0];
}

// Rank 1 differs from rank 0 (its shape, its C's offset, its A's alignment or memory): every rank
// refuses, saying why, before anything is allocated or launched, and then runs.
struct TwoRankRefusal {
  const char* name;
  int (*body)(Runtime&);
};
void PrintTo(const TwoRankRefusal& r, std::ostream* os) { *os << r.name; }  // a stable test name
class RanksThatDisagree : public ::testing::TestWithParam<TwoRankRefusal> {};

TEST_P(RanksThatDisagree, AllRefuseBeforeAnyLaunchAndThenRun) {
  SYMM_REQUIRE_GPUS(1);
  const CapturedRun run = run_on_ranks_captured(2, GetParam().body);
  EXPECT_EQ(run.exit_code, 0) << run.output[0] << run.output[1];
}

INSTANTIATE_TEST_SUITE_P(GemmAllScatterFailures, RanksThatDisagree,
                         ::testing::Values(TwoRankRefusal{"DifferentShapes", ranks_given_different_shapes_all_refuse},
                                           TwoRankRefusal{"CAtAnotherOffset", c_at_another_offset_is_refused_on_every_rank},
                                           TwoRankRefusal{"MisalignedA", misaligned_a_on_one_rank_stops_every_rank},
                                           TwoRankRefusal{"HostA", host_a_on_one_rank_stops_every_rank}),
                         [](const ::testing::TestParamInfo<TwoRankRefusal>& info) { return info.param.name; });

TEST(GemmAllScatterFailures, APeerThatNeverArrivesEndsEveryRankWithinTheBudget) {
  SYMM_REQUIRE_GPUS(1);
  ScopedEnv budget("SYMM_WAIT_TIMEOUT_MS", "300");
  const CapturedRun run = run_on_ranks_captured(2, peer_never_arrives);
  EXPECT_NE(run.exit_code, 0);
  std::smatch waited;
  ASSERT_TRUE(std::regex_search(run.output[0], waited, std::regex("wait timed out after (\\d+) ms")))
      << run.output[0];
  // Near the budget set, far below the 10 s default: a budget that is not read fails here.
  EXPECT_GE(std::stoi(waited[1]), 300);
  EXPECT_LE(std::stoi(waited[1]), 1000) << "the barrier's wait ignored SYMM_WAIT_TIMEOUT_MS=300";
  EXPECT_LT(run.seconds, 60.0);
}

}  // namespace
}  // namespace symm::test
