// The GEMM against cuBLAS (fp32 output) on fresh random data: every built configuration,
// both input types, both B layouts, bf16/fp16 and fp32 outputs, ragged shapes, split-K,
// a shard written into a wider C, and the mma.sync fallback (forced and automatic).
// C is poisoned with NaN first: an unwritten element fails, and so does any NaN.
#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "gemm_vs_cublas.hpp"
#include "symm/common/error.hpp"
#include "symm/gemm/gemm.hpp"

namespace symm::gemm {
// gtest prints a configuration by its name.
inline void PrintTo(const KernelConfig& c, std::ostream* os) { *os << to_string(c); }
}  // namespace symm::gemm

namespace symm::gemm::test {
namespace {

// Aligned; ragged in M, N and K (K tail inside a 64-wide stage); several tiles per block.
const Shape kShapes[] = {{256, 512, 256, 0}, {333, 472, 1000, 8}, {1024, 768, 2048, 0}};

void for_each_variant(const std::function<void(const Case&)>& f) {
  for (const Shape& s : kShapes)
    for (DType in : {DType::bf16, DType::fp16})
      for (DType out : {in, DType::fp32})
        for (BLayout l : {BLayout::nk, BLayout::kn}) f(Case{s, in, out, l});
}

// `config` forced on `blocks` blocks (bf16, B in layout l), checked against cuBLAS: the
// plan that ran.
Plan run_forced(GemmVsCublas& check, const KernelConfig& config, int blocks, const Shape& shape, BLayout l) {
  GemmOptions o;
  o.config = config;
  o.num_blocks = blocks;
  const Plan plan = check.run(Case{shape, DType::bf16, DType::bf16, l}, o, 2);
  EXPECT_EQ(plan.config, config);
  return plan;
}

class WgmmaConfigTest : public ::testing::TestWithParam<KernelConfig> {};

TEST_P(WgmmaConfigTest, MatchesCublas) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  GemmOptions o;
  o.config = GetParam();
  o.num_blocks = 20;  // several work units per persistent block
  o.gsize_m = 3;
  o.k_splits = 1;
  for_each_variant([&](const Case& c) {
    const Plan plan = check.run(c, o);
    EXPECT_EQ(plan.kind, KernelKind::wgmma);
    EXPECT_EQ(plan.config, GetParam());
  });
}

INSTANTIATE_TEST_SUITE_P(Built, WgmmaConfigTest, ::testing::ValuesIn(kWgmmaConfigs),
                         [](const auto& info) {
                           std::string name = to_string(info.param);  // test names: [A-Za-z0-9_]
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// Ping-pong: the consumers alternate over a block's tiles, each skipping the other's
// stages. One block (every tile on it, odd and even counts), a few blocks with uneven
// shares, and ragged edges; both layouts.
TEST(GemmPingpong, AlternatingConsumersMatchCublas) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  for (const KernelConfig& config : kWgmmaConfigs) {
    if (!config.pingpong()) continue;
    for (int blocks : {1, 3, 7})
      for (const Shape& shape : {Shape{640, 512, 320, 0}, Shape{333, 472, 1000, 8}}) {
        if (blocks < config.cluster_blocks()) continue;  // refused before launch (GemmPlanRandomWalk)
        for (BLayout l : {BLayout::nk, BLayout::kn})
          EXPECT_EQ(run_forced(check, config, blocks, shape, l).num_blocks,
                    blocks / config.cluster_blocks() * config.cluster_blocks());
      }
  }
}

// Clusters: blocks of a cluster column compute vertically adjacent tiles, each loading its
// part of their shared B tile into all of them; blocks of a cluster row share A the same
// way. Odd numbers of tile rows and columns (a cluster's last tiles lie past M or N), one
// cluster for every unit, block counts that are not whole clusters (rounded down), ragged
// edges; both layouts.
TEST(GemmCluster, BlocksSharingOperandTilesMatchCublas) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  int configs = 0;
  for (const KernelConfig& config : kWgmmaConfigs) {
    if (!config.clustered()) continue;
    ++configs;
    for (int blocks : {config.cluster_blocks(), 5, 12})
      for (const Shape& shape : {Shape{640, 512, 320, 0}, Shape{333, 472, 1000, 8}, Shape{1000, 1000, 1000, 0},
                                 Shape{400, 700, 192, 0}}) {
        for (BLayout l : {BLayout::nk, BLayout::kn}) {
          const Plan plan = run_forced(check, config, blocks, shape, l);
          EXPECT_EQ(plan.num_blocks % config.cluster_blocks(), 0);
          EXPECT_LE(plan.num_blocks, blocks);
        }
      }
  }
  EXPECT_GT(configs, 0) << "no cluster configuration is built";
}

// The blocks this GPU holds at once in clusters of 4 (the planner's limit for those
// configurations): whole clusters, no more than the SMs, and on an H200 some.
TEST(GemmCluster, ResidentClusterBlocksAreWholeClustersTheGpuHolds) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  const DeviceLimits d = query_device_limits(0);
  std::printf("%d SMs; resident in clusters of 4: %d blocks\n", d.sm_count, d.quad_cluster_blocks);
  EXPECT_GT(d.quad_cluster_blocks, 0);
  EXPECT_EQ(d.quad_cluster_blocks % 4, 0);
  EXPECT_LE(d.quad_cluster_blocks, d.sm_count);
}

TEST(GemmSplitK, UnevenSplitsMatchCublas) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  for (int splits : {2, 3, 7}) {
    GemmOptions o;
    o.k_splits = splits;
    o.num_blocks = 40;
    for (BLayout l : {BLayout::nk, BLayout::kn}) {
      const Plan plan = check.run(Case{{640, 576, 4160, 0}, DType::bf16, DType::bf16, l}, o, 2);
      EXPECT_EQ(plan.sched.k_splits, splits);
    }
  }
}

// Every configuration that may split K, split 3 ways on a ragged problem (fp32 out too):
// each consumer's partial parts written by the first splits and added by the last (in
// clusters, each block its own tile's; 128x256 pairs leave a tile past M).
TEST(GemmSplitK, EveryConfigurationThatSplitsMatchesCublas) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  int configs = 0;
  for (const KernelConfig& config : kWgmmaConfigs) {
    if (config.whole_tiles_only()) continue;
    ++configs;
    GemmOptions o;
    o.config = config;
    o.k_splits = 3;
    o.num_blocks = 40;
    for (DType out : {DType::bf16, DType::fp32})
      for (BLayout l : {BLayout::nk, BLayout::kn}) {
        const Plan plan = check.run(Case{{333, 472, 1000, 8}, DType::bf16, out, l}, o);
        EXPECT_EQ(plan.config, config);
        EXPECT_EQ(plan.sched.k_splits, 3) << to_string(config);
      }
  }
  EXPECT_GT(configs, 0) << "no configuration that splits K is built";
}

// Tiles whose partial sums another unit adds (stream-K, the last wave split): three tile
// shapes alone, 128x256 in 2 x 1 and 2 x 2 clusters (a worker is a cluster; a tile past M)
// and 200x128 swapped pairs (transposed parts).
const KernelConfig kFinishedByAnotherUnit[] = {{128, 192, 64, 4},
                                               {128, 256, 64, 4},
                                               {256, 128, 64, 4},
                                               {128, 256, 64, 4, Schedule::cooperative, 2},
                                               {128, 256, 64, 4, Schedule::cooperative, 2, 2},
                                               {200, 128, 64, 4, Schedule::swapped, 2}};

// Stream-K: uneven ranges (odd worker counts, ragged K), tiles spread over up to several
// workers, data-parallel waves first (4 blocks), every kFinishedByAnotherUnit
// configuration; three launches on one workspace reset the flags. 100 blocks, not
// 132: 15 tiles of 256x128 x 65 K iterations are too few to give 132 workers 8 iterations
// each (stream_k_fits).
TEST(GemmStreamK, MatchesCublas) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  for (const KernelConfig& config : kFinishedByAnotherUnit)
    for (int blocks : {4, 14, 38, 100}) {
      GemmOptions o;
      o.config = config;
      o.stream_k = 1;
      o.num_blocks = blocks;
      for (BLayout l : {BLayout::nk, BLayout::kn}) {
        const Plan plan = check.run(Case{{700, 576, 4160, 8}, DType::fp16, DType::fp32, l}, o, 3);
        EXPECT_TRUE(plan.sched.stream_k()) << to_string(plan.config);
        if (blocks == 4) {
          EXPECT_GT(plan.sched.dp_tiles, 0) << to_string(plan.config);
        }
      }
    }
}

// The last wave split (split_tail=1): whole tiles first, then the part-empty wave's tiles
// split along K, finished by their last split. Worker counts leave 1 to 10 tiles to split;
// 2 or 3 splits given and the model's; every kFinishedByAnotherUnit configuration; three
// launches on one workspace (the counters reset).
TEST(GemmSplitTail, MatchesCublas) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  int tails = 0;
  for (const KernelConfig& config : kFinishedByAnotherUnit)
    for (int blocks : {4, 10, 14, 26})
      for (int splits : {0, 2, 3}) {
        GemmOptions o;
        o.config = config;
        o.num_blocks = blocks;
        o.k_splits = splits;
        o.split_tail = 1;
        const Plan plan = check.run(Case{{700, 1000, 2600, 8}, DType::bf16, DType::fp32, BLayout::nk}, o, 3);
        const int workers = plan.num_blocks / config.cluster_blocks();
        const std::string what = to_string(config) + " " + decomposition(plan.sched);
        if (plan.sched.num_tiles() <= workers || plan.sched.num_tiles() % workers == 0) {  // no part-empty wave
          EXPECT_EQ(plan.sched.dp_tiles, 0) << what;
          continue;
        }
        ++tails;
        EXPECT_EQ(plan.sched.dp_tiles, plan.sched.num_tiles() / workers * workers) << what;
        EXPECT_GT(plan.sched.k_splits, 1) << what;
        if (splits > 0) {
          EXPECT_EQ(plan.sched.k_splits, splits) << what;
        }
      }
  EXPECT_GE(tails, 24) << "too few plans split a last wave";
}

TEST(GemmSplitK, HeuristicSpreadsSkinnyShard) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  // Three launches with one workspace: the counters must reset themselves in between.
  const Plan plan =
      check.run(Case{{1024, 576, 16384, 0}, DType::fp16, DType::fp16, BLayout::nk}, {}, 3);
  EXPECT_TRUE(plan.sched.k_splits > 1 || plan.sched.stream_k())
      << "a skinny shard should be spread along K";
}

// Operands TMA cannot take (odd strides, a C block at an odd column) run WGMMA through
// 128-byte-pitched scratch copies, C copied back into its block only; rows that straddle
// 128-byte lines (K = 4104) are copied where the straddle model says it pays: with a block
// per tile (clusters read them in place, so the configuration is forced) and both A and B
// straddling (B as N x K). As K x N only A straddles, which costs that tile little L2
// traffic, and A is read in place.
TEST(GemmCopies, UnalignedAndStraddlingOperandsMatchCublas) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  for (BLayout l : {BLayout::nk, BLayout::kn}) {
    const Plan odd = check.run(Case{{1001, 1003, 1001, 0}, DType::bf16, DType::bf16, l}, {});
    EXPECT_EQ(odd.kind, KernelKind::wgmma);
    EXPECT_TRUE(odd.copies.a.needed() && odd.copies.b.needed() && odd.copies.c.needed());
    const Plan padded = check.run(Case{{640, 520, 776, 1}, DType::fp16, DType::fp32, l, 3}, {}, 2);
    EXPECT_TRUE(padded.copies.c.needed());
    GemmOptions block_per_tile;
    block_per_tile.config = KernelConfig{128, 256, 64, 4};
    const Plan straddling =
        check.run(Case{{6144, 3456, 4104, 0}, DType::bf16, DType::bf16, l}, block_per_tile);
    // B's rows straddle only as N x K (K x N rows are 3456 elements: whole 128-byte lines).
    EXPECT_EQ(straddling.copies.a.needed(), l == BLayout::nk);
    EXPECT_EQ(straddling.copies.b.needed(), l == BLayout::nk);
  }
}

TEST(GemmShard, WritesOnlyItsColumnsOfAWiderC) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  for (BLayout l : {BLayout::nk, BLayout::kn})
    check.run(Case{{384, 320, 512, 0}, DType::bf16, DType::bf16, l, 64}, {});
}

// run(p, stream) keeps the last problem's plan: another problem must be planned afresh
// (its tile, copies and workspace), and coming back to the first must not run the second's.
TEST(GemmRun, PlansEachProblemItIsGiven) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  const Case large{{1024, 768, 2048, 0}};
  const Case ragged{{333, 200, 520, 8}, DType::fp16, DType::fp16, BLayout::kn};
  const Case straddling{{1001, 1003, 1001, 0}};  // A and B copied (GemmCopies)
  const Case skinny{{128, 256, 8192, 0}};  // split-K
  GemmVsCublas check;
  check.run_in_turn({large, ragged, ragged, straddling, skinny, large, straddling}, {});
}

// A graph captured from a Gemm keeps working after the Gemm ran other plans: ones that
// needed more scratch (the captured launch's buffer must not be freed under the graph),
// and ones whose operand copies fit the scratch the captured split-K plan used (they must
// not land on its counters, which the replay expects at zero).
TEST(GemmGraph, ACapturedLaunchReplaysAfterOtherPlansRan) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  const Case split{{128, 256, 8192, 0}};         // split-K: counters and partials
  const Case copied{{1001, 1003, 1001, 0}};      // A, B and C through copies (GemmCopies)
  const Case larger{{2001, 2003, 2001, 0}};      // more copies: the scratch grows
  GemmVsCublas check;
  check.replay_after({}, split, {copied, larger}, {});
  check.replay_after({}, copied, {larger}, {});
  check.replay_after({larger}, split, {copied}, {});
}

// A capture cannot allocate memory: a plan that needs more scratch than the Gemm holds is
// refused with what to do, before anything breaks the capture.
TEST(GemmGraph, ACaptureThatWouldAllocateIsRefused) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  const OwnedStream stream;
  DeviceBuffer a(128 * 8192 * 2, "A"), b(256 * 8192 * 2, "B"), c(128 * 256 * 2, "C");
  const GemmProblem p{128, 256, 8192, a.get(), 8192, b.get(), 8192, BLayout::nk, c.get(), 256,
                      DType::bf16, DType::bf16};
  Gemm gemm;
  ASSERT_GT(workspace_bytes(gemm.plan(p)), 0u) << "the case needs scratch";
  cudaGraph_t graph = nullptr;
  SYMM_TEST_CUDA(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
  try {
    gemm.run(p, stream.get());
    ADD_FAILURE() << "a capture that needed an allocation was not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("run the plan once before the capture"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cudaStreamEndCapture(stream.get(), &graph), cudaSuccess) << "the refusal broke the capture";
  if (graph) cudaGraphDestroy(graph);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// A, B or C in host memory the GPU cannot read is refused before launch, naming the
// operand: a kernel reading it would fault and end the context, losing the process's work.
// The Gemm and the context then run device operands.
TEST(GemmInputs, HostMemoryIsRefusedBeforeLaunch) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  int pageable = 0;
  SYMM_TEST_CUDA(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0));
  if (pageable) GTEST_SKIP() << "this GPU reads pageable host memory: nothing to refuse";
  constexpr std::int64_t m = 256, n = 256, k = 256;
  const OwnedStream stream;
  DeviceBuffer a(m * k * 2, "A"), b(n * k * 2, "B"), c(m * n * 2, "C");
  std::vector<std::uint16_t> host(m * k);  // as large as any operand
  const GemmProblem device{m, n, k, a.get(), k, b.get(), k, BLayout::nk, c.get(), n, DType::bf16, DType::bf16};
  Gemm gemm;
  gemm.run(device, stream.get());  // the operands are then known to be reachable: others are asked again
  for (const char* name : {"A", "B", "C"}) {
    GemmProblem p = device;
    if (name[0] == 'A') p.a = host.data();
    if (name[0] == 'B') p.b = host.data();
    if (name[0] == 'C') p.c = host.data();
    try {
      gemm.run(p, stream.get());
      ADD_FAILURE() << name << " in host memory was not refused";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("symm gemm: ") + name + " ("), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("cannot reach"), std::string::npos) << e.what();
    }
  }
  gemm.run(device, stream.get());
  SYMM_TEST_CUDA(cudaStreamSynchronize(stream.get()));
}

// Pinned host memory passes that check; the kernel's TMA loads then read A over the bus:
// C must be what the same A in device memory gives, bit for bit.
TEST(GemmInputs, PinnedHostOperandRunsAsDeviceMemoryDoes) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  constexpr std::int64_t m = 256, n = 512, k = 384;
  std::mt19937_64 rng(fresh_seed());
  std::vector<float> exact;
  const std::vector<std::uint16_t> a_bits = random_matrix(m, k, DType::bf16, rng, exact);
  const std::vector<std::uint16_t> b_bits = random_matrix(n, k, DType::bf16, rng, exact);
  const OwnedStream stream;
  DeviceBuffer a(m * k * 2, "A"), b(n * k * 2, "B"), c(m * n * 2, "C"), c_pinned(m * n * 2, "C of the pinned A");
  MappedHostBuffer pinned(m * k * 2, "pinned A");
  std::memcpy(pinned.host(), a_bits.data(), m * k * 2);
  SYMM_TEST_CUDA(cudaMemcpy(a.get(), a_bits.data(), m * k * 2, cudaMemcpyHostToDevice));
  SYMM_TEST_CUDA(cudaMemcpy(b.get(), b_bits.data(), n * k * 2, cudaMemcpyHostToDevice));
  // Poisoned apart: an element neither run wrote cannot compare equal.
  SYMM_TEST_CUDA(cudaMemset(c.get(), 0xff, m * n * 2));
  SYMM_TEST_CUDA(cudaMemset(c_pinned.get(), 0x7f, m * n * 2));
  GemmProblem p{m, n, k, a.get(), k, b.get(), k, BLayout::nk, c.get(), n, DType::bf16, DType::bf16};
  Gemm gemm;
  gemm.run(p, stream.get());
  p.a = pinned.device();
  p.c = c_pinned.get();
  gemm.run(p, stream.get());
  SYMM_TEST_CUDA(cudaStreamSynchronize(stream.get()));
  std::vector<std::uint16_t> from_device(m * n), from_pinned(m * n);
  SYMM_TEST_CUDA(cudaMemcpy(from_device.data(), c.get(), m * n * 2, cudaMemcpyDeviceToHost));
  SYMM_TEST_CUDA(cudaMemcpy(from_pinned.data(), c_pinned.get(), m * n * 2, cudaMemcpyDeviceToHost));
  EXPECT_EQ(from_pinned, from_device);
}

TEST(GemmFallback, ForcedOnAlignedShapes) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(false); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  GemmOptions o;
  o.force_fallback = true;
  for (const KernelConfig& config : {FallbackConfig::desc, FallbackNarrowConfig::desc}) {
    o.config = config;
    for_each_variant([&](const Case& c) {
      if (!fallback_takes(config, c.layout)) return;  // refused at planning (plan_test)
      const Plan plan = check.run(c, o);
      EXPECT_EQ(plan.kind, KernelKind::fallback);
      EXPECT_EQ(plan.config, config);
      EXPECT_TRUE(plan.aligned_loads);
    });
  }
}

// Split-K in the fallback: uneven splits, ragged shapes, both loaders; three launches on
// one workspace (the last split of each tile resets its counter).
TEST(GemmFallback, SplitKMatchesCublas) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(false); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  GemmOptions o;
  o.force_fallback = true;
  for (int splits : {2, 3, 7})
    for (BLayout l : {BLayout::nk, BLayout::kn}) {
      o.k_splits = splits;
      const Plan plan = check.run(Case{{333, 472, 1000, 8}, DType::bf16, DType::fp32, l}, o, 3);
      EXPECT_EQ(plan.sched.k_splits, splits);
      check.run(Case{{197, 131, 301, 2}, DType::fp16, DType::fp16, l}, o, 3);  // element-wise loads
    }
  o.k_splits = 0;  // the heuristic splits a skinny shard, in 96-wide tiles
  const Plan plan = check.run(Case{{1024, 576, 16384, 0}, DType::bf16, DType::bf16, BLayout::nk}, o, 3);
  EXPECT_GT(plan.sched.k_splits, 1);
  EXPECT_EQ(plan.config, FallbackNarrowConfig::desc);
}

TEST(GemmFallback, ChosenForRowsTmaCannotDescribe) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(false); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  GemmOptions in_place;  // no operand copies (with them WGMMA runs it: GemmCopies)
  in_place.operand_copies = false;
  for (DType in : {DType::bf16, DType::fp16})
    for (BLayout l : {BLayout::nk, BLayout::kn}) {
      // pad 2: odd row strides (not 16-byte multiples) for A, B and C; K and N odd too.
      const Plan plan = check.run(Case{{197, 131, 301, 2}, in, in, l}, in_place);
      EXPECT_EQ(plan.kind, KernelKind::fallback);
      EXPECT_FALSE(plan.aligned_loads);
    }
}

}  // namespace
}  // namespace symm::gemm::test
