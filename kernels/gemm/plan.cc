// Rules and heuristic of the GEMM: which kernel can run a problem, and which should.
#include "symm/gemm/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "copy_choice.hpp"
#include "plan_rules.hpp"
#include "symm/common/error.hpp"

namespace symm::gemm {
namespace {

using detail::aligned16;
using detail::clamp_notes;
using detail::copy_choices;
using detail::CopyChoice;
using detail::cost_with;
using detail::fallback_plan;
using detail::kMaxSplits;
using detail::kMinKItersPerSplit;
using detail::kMinSplitGain;
using detail::kPartialKIters;

constexpr std::int64_t kMaxDim = std::numeric_limits<std::int32_t>::max();

// Configurations the heuristic considers; the Iris sweep shapes (2 and 3 stages) run only
// when asked for. Efficiencies: full-tile throughput relative to 128x256x64s4, measured
// on an H200 (docs/gemm.md, runs 1-3). Ping-pong: rated on its mainloop alone (its
// epilogue is hidden, see predicted_cost), from the 2026-12-01 probe, where both shapes
// ran at 0.97-0.98 of 128x256x64s4 on the short-K shapes they should help most.
struct Candidate {
  KernelConfig config;
  double efficiency;
};
// 2-block clusters: at parity with their tiles on whole-line rows (within the run's 2-6 %
// spread), rated a little lower so that the tuner's few candidates keep other shapes; where
// rows straddle lines they lose far less (straddle_slowdown). 128x160 ping-pong, alone and
// in clusters (cuBLASLt's fastest kernel on short K is a 128x160 tile in 2-block clusters):
// 0.97-1.06 of cuBLASLt on K = 1792 and 4096 where 128x256 ran 0.84-0.95 (same runs,
// bench/results/gemm/2026-12-01-clusters). 128x192 ping-pong (the widest tile whose
// accumulators fit a consumer, and one that takes B as K x N): 1.02-1.04 of cuBLASLt on
// 8192^3 where 128x256 ran 0.97-1.0, 0.95-0.97 on K = 1024 where every other tile ran
// 0.85-0.92; in clusters it lifts the one wave of 777 x 4104 x 8200 from 0.46 to 0.57
// (bench/results/gemm/2026-12-02-pingpong192-2247aac). 2 x 2 clusters of 128x256: only 120
// blocks are resident at once in clusters of 4 on an H200 (30 clusters), which costs 15 %
// on 8192^3 against 2 x 1 clusters (1.02 -> 0.86 of cuBLASLt) and nothing on 6144 x 3456 x
// 4096, where both need 6 waves; rated per block between the two (bench/results/gemm/
// 2026-12-02-quad-7e7dbc8). They read straddling rows as fast as whole-line ones.
// 64x128 ping-pong: a tile per block of a small problem (1000^3: 128 tiles for 132 SMs,
// where 128x128 leaves half of them idle); rated below its wider siblings (one consumer
// per tile when there is one tile per block). Such a block loads more operand rows per
// multiply-add than the SM's load path keeps up with; in 2 x 1 clusters sharing B it loads
// a third fewer: 1000^3 0.83-0.84 of cuBLASLt against 0.72-0.75 alone, but 0.745 against
// 1.0 on 1024 x 1024 x 8192 (forced, same runs), where the plan is 128x128 tiles with K
// split either way. Rated a hair above its single twin (0.81 against 0.80, which breaks
// their tie on one-wave problems): on 1000^3 the pair ran 0.87 / 0.81 / 0.89 of cuBLASLt
// where the single one ran 0.80 / 0.77 / 0.73 (presets at 7b32d8f, ef98b2b). Pairs of 256x128 tiles (one full wave of 132 blocks on up
// to 1024 rows): 6120 x 3400 x 4104 0.89-0.93 where 2 x 2 clusters of 128x256 ran
// 0.86-0.88 (bench/results/gemm/2026-12-02-pairs-743c91d, -pairs-9514fba).
// 192x160 (three consumers of 64 rows): the same operand rows per output as 128x256, for
// M that 128- and 256-row tiles fit badly; alone and with A shared along a 1 x 2 cluster
// (both rows of a unit straddle less). Rated below 128x256 until measured.
// 200x128 swapped (config.hpp), alone and with B shared along a 2 x 1 cluster: cuBLASLt's
// tile on 777 x 4104 x 8200 (132 tiles of 200 rows x 128 columns, one wave, 1 x 2 clusters
// in its column-major view; bench/results/gemm/2026-12-02-profile777-59eedd2). The pair
// ran 0.78-0.80 of cuBLASLt there (the 192x160 pair 0.69-0.74) and 0.954 with whole-line
// rows (128x256: 0.815; bench/results/gemm/2026-12-02-swapped-af7799e). Rated 0.94: above
// 0.97 the model would also move 16384 x N x 4096 onto it, where it has not been timed
// untuned; the tuner takes it where it wins (777 rows with either layout of B).
// 160x256 swapped pairs (B shared down a 2 x 1 cluster; each consumer two 64-column blocks
// of 160 rows): near cuBLASLt's tile on 12296 x 2792 x 1000 (`256x152` in its column-major
// view; bench/results/gemm/2026-12-02-profile-7b32d8f), no K x N tail box, one staging tile
// per consumer. 2500 x 10008 x 3000 with K x N: 0.956 of cuBLASLt (2 x 2 clusters of 128x256:
// 0.91-0.93); on short K its unhidden epilogue costs it (12296 x 2792 x 1000 0.88 against
// 0.89 for 128x256 pairs), and on aligned shapes it trails the row tiles (16384 x 4096 x 4096
// 0.924, 4096 x 4096 x 3584 0.796; bench/results/gemm/2026-12-02-swapped256-90dbe48): 0.93.
// 256x160, alone and with A shared along a 1 x 2 cluster: tile counts that make whole waves
// where 128- and 256-column tiles leave a part-empty one (5120^3: 4.85 waves against 5.8 of
// 128x256); a fourth stage fits beside one staging tile per consumer (config.hpp), whose
// epilogue costs more (kSingleStagingEpilogueKIters). In 2 x 1 clusters (B shared), B as
// N x K: 1.00-1.06 of cuBLASLt on long K (5120^3 1.045, 12288^3 1.000, 16384 x 4096 x 4096
// 1.059), 0.86-0.89 where K is short or rows straddle lines (6120 x 3400 x 4104 0.864
// against 0.894 for 2 x 2 clusters of 128x256, its 256 unshared A rows straddling); alone
// 0.90-1.03 (bench/results/gemm/2026-12-02-wide-da761ac). Sharing A instead loads 288
// rows per K iteration and block, not 336, and straddles as little as 2 x 2 clusters.
constexpr Candidate kCandidates[] = {
    {{128, 256, 64, 4}, 1.00}, {{256, 128, 64, 4}, 0.99}, {{128, 192, 64, 4}, 0.99},
    {{128, 144, 64, 5}, 0.96}, {{128, 128, 64, 6}, 0.94},
    {{128, 256, 64, 4, Schedule::cooperative, 2}, 0.98}, {{128, 192, 64, 4, Schedule::cooperative, 2}, 0.97},
    {{128, 256, 64, 4, Schedule::cooperative, 2, 2}, 0.95},
    {{256, 128, 64, 4, Schedule::cooperative, 2}, 0.97},
    {{192, 160, 64, 4}, 0.95}, {{192, 160, 64, 4, Schedule::cooperative, 1, 2}, 0.94},
    {{256, 160, 64, 4}, 0.95}, {{256, 160, 64, 4, Schedule::cooperative, 1, 2}, 0.98},
    {{200, 128, 64, 4, Schedule::swapped}, 0.94}, {{200, 128, 64, 4, Schedule::swapped, 2}, 0.94},
    {{160, 256, 64, 4, Schedule::swapped, 2}, 0.93}, {{152, 256, 64, 4, Schedule::swapped, 2}, 0.93},
    {{128, 192, 64, 4, Schedule::pingpong}, 1.00}, {{128, 192, 64, 4, Schedule::pingpong, 2}, 0.98},
    {{128, 160, 64, 5, Schedule::pingpong, 2}, 0.97}, {{128, 160, 64, 5, Schedule::pingpong}, 0.95},
    {{128, 128, 64, 6, Schedule::pingpong}, 0.86}, {{64, 256, 64, 4, Schedule::pingpong}, 0.86},
    {{64, 128, 64, 8, Schedule::pingpong}, 0.80}, {{64, 128, 64, 8, Schedule::pingpong, 2}, 0.81}};
constexpr double kEpilogueKIters = 2.0;  // a tile's epilogue costs about 2 K iterations
// With one staging tile per consumer each piece waits for the store before it (an
// estimate: 256x160 pairs ran 0.89 of cuBLASLt on K = 1792, 1.06 on K = 4096; 4 until
// stmatrix staged the pieces faster and 152x256 swapped pairs, charged 4, ran 0.937 where
// 128x256 pairs ran 0.911 on 12296 x 2792 x 1000: bench/results/gemm/2026-12-02-stmatrix-ef98b2b).
constexpr double kSingleStagingEpilogueKIters = 3.0;

double epilogue_k_iters(const KernelConfig& c) {
  return c.staging() == 1 ? kSingleStagingEpilogueKIters : kEpilogueKIters;
}
// A stream-K range starts its tiles at other K positions than the tiles sharing their A
// rows and B columns, so L2 serves it less (run 3: DRAM-bound on skinny shards): its
// iterations are charged 1.3 (an estimate; the tuner measures).
constexpr double kStreamKIterCost = 1.3;

bool is_built(const KernelConfig& c) {
  return std::find(kWgmmaConfigs.begin(), kWgmmaConfigs.end(), c) != kWgmmaConfigs.end();
}

// A K x N B in a tile that is not a multiple of 64 wide: the narrow tail box's wgmma
// (config.hpp, kn_tail_cols) ran the tile at 0.85-0.9 of its N x K twin's speed on long K
// (bench/results/gemm/2026-12-02-kntail-2de35da), 256x160 pairs at 0.91
// (6120 x 3400 x 4104, bench/results/gemm/2026-12-02-wide-791d965).
constexpr double kKnTailEfficiency = 0.88;

double efficiency(const KernelConfig& c, BLayout b_layout) {
  const double layout = b_layout == BLayout::kn && kn_tail_cols(c.blk_n) > 0 ? kKnTailEfficiency : 1.0;
  for (const auto& cand : kCandidates)
    if (cand.config == c) return cand.efficiency * layout;
  // Shallower pipelines and narrower tiles: less latency hidden, more operand traffic.
  const double shape = double(c.blk_m * c.blk_n) / (128.0 * 256.0);
  return std::min(1.0, 0.55 + 0.35 * shape + 0.05 * c.stages) * layout;
}

// Blocks: gemm_sms (or every SM).
int blocks_for(const GemmOptions& o, const DeviceLimits& d) {
  return o.num_blocks > 0 ? std::min(o.num_blocks, d.sm_count) : d.sm_count;
}

// Blocks of configuration c: whole clusters of them, as many as can be resident at once
// (a persistent block that waits for a free SM would run its share after the others).
int blocks_for(const KernelConfig& c, const GemmOptions& o, const DeviceLimits& d) {
  const int resident = c.cluster_blocks() == 4 ? d.quad_cluster_blocks : d.sm_count;
  return std::min(blocks_for(o, d), resident) / c.cluster_blocks() * c.cluster_blocks();
}

// Ping-pong and cluster kernels take whole tiles only (config.hpp): not with forced splits
// or stream-K.
bool schedule_allowed(const KernelConfig& c, const GemmOptions& o) {
  return !c.whole_tiles_only() || (o.k_splits <= 1 && o.stream_k != 1);
}

bool schedule_wanted(const KernelConfig& c, const GemmOptions& o) {
  return (o.pingpong == -1 || o.pingpong == int(c.pingpong())) &&
         (o.clusters == -1 || o.clusters == int(c.clustered()));
}

// gsize_m beyond the tile rows is one group, the same order: clamped, so that the
// scheduler's gsize_m x tiles_n stays within int for any SYMM_GEMM_GSIZE_M.
// A unit of a cluster configuration is the cluster's tiles.
TileScheduler schedule(const KernelConfig& c, const GemmProblem& p, int splits, int gsize_m) {
  const int rows = int(ceil_div(p.m, c.unit_rows()));
  return TileScheduler::make(p.m, p.n, p.k, c.unit_rows(), c.unit_cols(), c.blk_k, splits, std::min(gsize_m, rows));
}

// Stream-K over `workers`: every full wave of tiles but the last goes data-parallel, and
// the last one to two waves' worth are cut into equal ranges, so no wave runs part-empty.
TileScheduler stream_k_schedule(TileScheduler s, int workers) {
  const int waves = workers > 0 ? s.num_tiles() / workers : 0;
  s.stream_k_workers = workers;
  s.dp_tiles = waves >= 2 ? (waves - 1) * workers : 0;
  return s;
}

// Whether stream-K can run s, and (unless forced) may help: there is a partial wave to
// even out after at least one data-parallel wave. Stream-K over every tile lost to
// split-K by up to 1.6x on skinny shards (docs/gemm.md, run 3): L2 stopped serving A.
bool stream_k_fits(const TileScheduler& s, int workers, bool forced) {
  if (workers <= 0 || s.stream_k_iters() < std::int64_t(workers) * kMinKItersPerSplit ||
      s.total_iters() > std::numeric_limits<std::int32_t>::max())
    return false;
  return forced || (s.dp_tiles > 0 && s.num_tiles() % workers != 0);
}

// The decomposition of config c (data-parallel, split-K or stream-K) with the lowest cost.
TileScheduler best_schedule(const KernelConfig& c, const GemmProblem& p, const GemmOptions& o,
                            int blocks) {
  const TileScheduler unsplit = schedule(c, p, 1, o.gsize_m);
  if (c.whole_tiles_only()) return unsplit;
  if (o.k_splits > 0) return schedule(c, p, std::min(o.k_splits, unsplit.k_iters), o.gsize_m);
  const int workers = blocks;
  const TileScheduler stream = stream_k_schedule(unsplit, workers);
  if (o.stream_k == 1 && stream_k_fits(stream, workers, true)) return stream;
  const double base = predicted_cost(c, unsplit, blocks, p.b_layout);
  TileScheduler best = unsplit;
  double best_cost = base;
  const int max_splits = std::clamp(unsplit.k_iters / kMinKItersPerSplit, 1, kMaxSplits);
  for (int splits = 2; splits <= max_splits; ++splits) {
    const TileScheduler split = schedule(c, p, splits, o.gsize_m);
    const double cost = predicted_cost(c, split, blocks, p.b_layout);
    if (cost < best_cost && cost < kMinSplitGain * base) best = split, best_cost = cost;
  }
  if (o.stream_k != 0 && stream_k_fits(stream, workers, false)) {
    const double cost = predicted_cost(c, stream, blocks, p.b_layout);
    if (cost < best_cost && cost < kMinSplitGain * base) best = stream;
  }
  return best;
}

Plan wgmma_plan(const KernelConfig& c, const GemmProblem& p, const GemmOptions& o,
                const DeviceLimits& d, std::string reason) {
  Plan plan;
  plan.kind = KernelKind::wgmma;
  plan.config = c;
  const int blocks = blocks_for(c, o, d);
  plan.sched = best_schedule(c, p, o, blocks);
  plan.num_blocks = plan.sched.stream_k() ? plan.sched.stream_k_workers
                                          : std::min(blocks, plan.sched.num_units() * c.cluster_blocks());
  plan.reason = std::move(reason) + clamp_notes(o, plan, d);
  return plan;
}

}  // namespace

namespace detail {

// Knobs asking for more than the problem or the device has get what there is (a refusal
// would make one setting fail on every small problem); the reason (verbose line) says so.
std::string clamp_notes(const GemmOptions& o, const Plan& plan, const DeviceLimits& d) {
  std::string notes;
  const bool wgmma = plan.kind == KernelKind::wgmma;
  if (o.k_splits > plan.sched.k_splits)
    notes += fmt::format("; k_splits={} (SYMM_GEMM_SPLITS) clamped to {}, the most {} K iterations allow",
                         o.k_splits, plan.sched.k_splits, plan.sched.k_iters);
  if (wgmma && o.num_blocks > d.sm_count)
    notes += fmt::format("; num_blocks={} (SYMM_GEMM_SMS) clamped to the {} SMs", o.num_blocks, d.sm_count);
  if (const int asked = blocks_for(o, d); wgmma && blocks_for(plan.config, o, d) != asked)
    notes += fmt::format("; {} blocks ({}) rounded down to whole clusters of {} that can be resident at once",
                         asked, o.num_blocks > 0 ? "SYMM_GEMM_SMS" : "one per SM", plan.config.cluster_blocks());
  if (!wgmma && o.num_blocks > 0)
    notes += "; num_blocks (SYMM_GEMM_SMS) does not apply to the fallback (a block per tile and split)";
  if (wgmma && o.stream_k == 1 && !plan.sched.stream_k())
    notes += fmt::format("; stream_k=1 (SYMM_GEMM_STREAM_K) not used: {}",
                         o.k_splits > 0 ? "k_splits (SYMM_GEMM_SPLITS) is given"
                                        : "fewer than 8 K iterations per block");
  return notes;
}

}  // namespace detail

std::string validate(const GemmProblem& p) {
  if (p.m < 1 || p.n < 1 || p.k < 1) return fmt::format("empty problem M={} N={} K={}", p.m, p.n, p.k);
  if (p.m > kMaxDim || p.n > kMaxDim || p.k > kMaxDim)
    return fmt::format("M, N and K must be below 2^31 (M={} N={} K={})", p.m, p.n, p.k);
  if (!p.a || !p.b || !p.c) return "A, B and C must be non-null device pointers";
  if (p.in_dtype == DType::fp32) return "inputs must be bf16 or fp16";
  if (p.out_dtype != DType::fp32 && p.out_dtype != p.in_dtype)
    return fmt::format("output must be the input type ({}) or fp32, not {}", to_string(p.in_dtype),
                       to_string(p.out_dtype));
  if (p.lda < p.k) return fmt::format("lda={} is below K={}", p.lda, p.k);
  const std::int64_t b_row = p.b_layout == BLayout::kn ? p.n : p.k;
  if (p.ldb < b_row) return fmt::format("ldb={} is below the row length {} of B ({})", p.ldb, b_row,
                                        to_string(p.b_layout));
  if (p.ldc < p.n) return fmt::format("ldc={} is below N={}", p.ldc, p.n);
  return {};
}

std::string validate(const GemmOptions& o) {
  if (o.num_blocks < 0) return fmt::format("num_blocks (SYMM_GEMM_SMS) is {}; give >= 1, or 0 for every SM", o.num_blocks);
  if (o.gsize_m < 1) return fmt::format("gsize_m (SYMM_GEMM_GSIZE_M) is {}; give >= 1", o.gsize_m);
  if (o.k_splits < 0)
    return fmt::format("k_splits (SYMM_GEMM_SPLITS) is {}; give >= 1, or 0 for the heuristic's", o.k_splits);
  if (o.stream_k < -1 || o.stream_k > 1)
    return fmt::format("stream_k (SYMM_GEMM_STREAM_K) is {}; give 0 (never), -1 (heuristic) or 1 (always)",
                       o.stream_k);
  if (o.pingpong < -1 || o.pingpong > 1)
    return fmt::format("pingpong (SYMM_GEMM_PINGPONG) is {}; give -1 (heuristic), 0 (never) or 1 (only)",
                       o.pingpong);
  if (o.clusters < -1 || o.clusters > 1)
    return fmt::format("clusters (SYMM_GEMM_CLUSTERS) is {}; give -1 (heuristic), 0 (never) or 1 (only)",
                       o.clusters);
  if (o.clusters == 1 && o.num_blocks == 1)
    return "clusters=1 (SYMM_GEMM_CLUSTERS) runs blocks in clusters of 2 or more: num_blocks=1 (SYMM_GEMM_SMS) "
           "is too few; give 2 or more, or 0 for every SM";
  if ((o.pingpong == 1 || o.clusters == 1) && (o.k_splits > 1 || o.stream_k == 1))
    return fmt::format("{} computes whole tiles only: it cannot be combined with k_splits > 1 "
                       "(SYMM_GEMM_SPLITS) or stream_k=1 (SYMM_GEMM_STREAM_K)",
                       o.pingpong == 1 ? "pingpong=1 (SYMM_GEMM_PINGPONG)" : "clusters=1 (SYMM_GEMM_CLUSTERS)");
  return {};
}

std::string tma_incompatibility(const GemmProblem& p) {
  if (!aligned16(p.a) || !aligned16(p.b) || !aligned16(p.c))
    return "A, B and C must start on 16-byte boundaries for TMA";
  const int in = dtype_bytes(p.in_dtype), out = dtype_bytes(p.out_dtype);
  if (p.lda * in % 16 != 0) return fmt::format("A's row stride lda*{}={} B is not a multiple of 16", in, p.lda * in);
  if (p.ldb * in % 16 != 0) return fmt::format("B's row stride ldb*{}={} B is not a multiple of 16", in, p.ldb * in);
  if (p.ldc * out % 16 != 0)
    return fmt::format("C's row stride ldc*{}={} B is not a multiple of 16", out, p.ldc * out);
  return {};
}

std::string can_implement(const KernelConfig& c, const GemmProblem& p, const DeviceLimits& d) {
  if (d.cc_major != 9 || d.cc_minor != 0)
    return fmt::format("WGMMA kernels are built for sm_90a; this device is sm_{}{}", d.cc_major, d.cc_minor);
  if (!is_built(c)) return fmt::format("configuration {} is not built into the library", to_string(c));
  if (c.smem_bytes() > d.max_smem_per_block)
    return fmt::format("configuration {} needs {} B of shared memory per block; the device allows {}",
                       to_string(c), c.smem_bytes(), d.max_smem_per_block);
  if (auto why = validate(p); !why.empty()) return why;
  return tma_incompatibility(p);
}

double predicted_cost(const KernelConfig& c, const TileScheduler& s, int num_blocks, BLayout b_layout) {
  // A cluster works on one unit, each of its blocks on one tile of it.
  const int workers = std::max(1, num_blocks / c.cluster_blocks());
  double busiest = 0;  // K-iteration equivalents of the busiest block
  if (c.pingpong()) {
    // One consumer's epilogue runs under the other's mainloop: only the last one shows.
    busiest = std::ceil(double(s.num_units()) / workers) * s.k_iters + epilogue_k_iters(c);
  } else if (s.stream_k()) {
    const double dp_waves = double(s.dp_tiles / workers);
    const double sk_tiles = std::ceil(double(s.num_tiles() - s.dp_tiles) / workers) + 1;
    busiest = dp_waves * (s.k_iters + epilogue_k_iters(c)) +
              kStreamKIterCost * std::ceil(double(s.stream_k_iters()) / workers) +
              2 * kPartialKIters + sk_tiles * epilogue_k_iters(c);
  } else {
    const double waves = std::ceil(double(s.num_units()) / workers);
    const double extra = epilogue_k_iters(c) + kPartialKIters * (s.k_splits - 1);
    busiest = waves * (std::ceil(double(s.k_iters) / s.k_splits) + extra);
  }
  return busiest * double(c.blk_m * c.blk_n) / efficiency(c, b_layout);
}

namespace {

// A plan cannot end before memory has delivered A and B once and taken C and the fp32
// partials of split tiles, however its K loops are spread over blocks. On decode-sized M
// that floor is the time: 128x128 tiles with K split 2 (twice the blocks of whole-K 64x128
// tiles) ran 0.65-0.80 of cuBLASLt at M <= 64 where the whole-K tiles ran 0.85-0.98, both
// reading B at about 2.9 TB/s or less (bench/results/gemm/2026-12-02-smallm-2908839). In the
// model's units: a 128x256 tile's K iteration (32768) takes about 0.73 us on an H200 (760
// TFLOP/s), in which memory delivers about 2.1 MB at that rate.
constexpr double kMemoryBytesPerFullTileKIter = 2.1e6;
// A cluster whose tiles lie partly past M or N runs blocks that only load for their
// partners: 64x128 ping-pong pairs ran 0.73-0.76 of cuBLASLt on 64 x 4096 x 4096 (one row
// of tiles, every second tile past M) where single blocks ran 0.83
// (bench/results/gemm/2026-12-02-floor-4963d4a); such a plan is charged per busy block.
// Among plans held to the memory floor, operand tiles shared in a cluster save nothing
// (memory delivers each byte once either way) and cost the blocks' lockstep: pairs ran
// 0.956 on 128 x 8192 x 8192 where single blocks ran 1.003. A thousandth of the model's
// cost per block of a cluster breaks such ties.
constexpr double kFloorTieBreak = 1e-3;

double memory_floor(const GemmProblem& p, const KernelConfig& c, const TileScheduler& s, int num_blocks) {
  const double in = dtype_bytes(p.in_dtype), out = dtype_bytes(p.out_dtype);
  const double tile_partial_bytes = double(c.blk_m) * c.blk_n * 4 * 2;  // written, then read
  const double partials = s.stream_k() ? double(num_blocks) : double(s.num_tiles()) * (s.k_splits - 1);
  const double bytes = in * double(p.k) * double(p.m + p.n) + out * double(p.m) * double(p.n) +
                       partials * tile_partial_bytes;
  return bytes / kMemoryBytesPerFullTileKIter * (128.0 * 256.0);
}

}  // namespace

namespace detail {

double problem_cost(const GemmProblem& p, const KernelConfig& c, const TileScheduler& s, int num_blocks) {
  // Clusters run whole tiles (no split-K or stream-K, whose blocks all have work).
  const double tiles_of_c = double(ceil_div(p.m, c.blk_m) * ceil_div(p.n, c.blk_n));
  const double blocks_per_busy_block =
      c.clustered() ? num_blocks / std::max(1.0, std::min(double(num_blocks), tiles_of_c)) : 1.0;
  const double compute = predicted_cost(c, s, num_blocks, p.b_layout) * blocks_per_busy_block;
  const double floor = memory_floor(p, c, s, num_blocks);
  return compute >= floor ? compute : floor + kFloorTieBreak * compute * c.cluster_blocks();
}

}  // namespace detail

namespace {

Plan with_copy_notes(Plan plan, const OperandCopies& copies) {
  plan.copies = copies;
  if (copies.any()) plan.reason += "; " + copies.describe();
  return plan;
}

}  // namespace

std::vector<Plan> candidate_plans(const GemmProblem& given, const GemmOptions& o, const DeviceLimits& d,
                                  int count) {
  std::vector<std::pair<double, Plan>> scored;
  const auto add_candidates = [&](const CopyChoice& choice, const KernelConfig& config) {
    const GemmProblem& p = choice.launched;
    if (!schedule_wanted(config, o) || !schedule_allowed(config, o) || !can_implement(config, p, d).empty() ||
        blocks_for(config, o, d) == 0)
      return;
    const auto cost = [&](const TileScheduler& s, int blocks) { return cost_with(choice, config, s, blocks); };
    Plan plan = with_copy_notes(wgmma_plan(config, p, o, d, "heuristic: fewest predicted K iterations per block"),
                                choice.copies);
    // Split-K's and stream-K's costs are the least certain part of the model: the split
    // factors next to the model's, and stream-K, compete too.
    const int workers = blocks_for(o, d);
    const TileScheduler stream = stream_k_schedule(schedule(config, p, 1, o.gsize_m), workers);
    if (!config.whole_tiles_only() && o.stream_k == -1 && o.k_splits == 0 && !plan.sched.stream_k() &&
        stream_k_fits(stream, workers, false)) {
      Plan variant = plan;
      variant.sched = stream;
      variant.num_blocks = workers;
      scored.emplace_back(cost(stream, variant.num_blocks), variant);
    }
    const int splits = plan.sched.k_splits;
    for (int other : {splits - 1, splits + 1}) {
      if (plan.sched.stream_k() || o.k_splits > 0 || splits == 1 || other < 1) continue;
      Plan variant = plan;
      variant.sched.k_splits = std::min(other, plan.sched.k_iters);
      variant.num_blocks = std::min(workers, variant.sched.num_units());
      scored.emplace_back(cost(variant.sched, variant.num_blocks), variant);
    }
    scored.emplace_back(cost(plan.sched, plan.num_blocks), std::move(plan));
  };
  for (const CopyChoice& choice : copy_choices(given, o, d))
    for (const auto& cand : kCandidates) add_candidates(choice, cand.config);
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // The tuner's few runs go to other configurations, not to a second copy choice of one.
  const auto same_but_copies = [](const Plan& a, const Plan& b) {
    return a.config == b.config && a.sched.k_splits == b.sched.k_splits && a.sched.stream_k() == b.sched.stream_k();
  };
  std::vector<Plan> plans;
  for (auto& [cost, plan] : scored) {
    if (int(plans.size()) == count) break;
    if (std::none_of(plans.begin(), plans.end(), [&](const Plan& kept) { return same_but_copies(kept, plan); }))
      plans.push_back(std::move(plan));
  }
  return plans;
}

Plan make_plan(const GemmProblem& p, const GemmOptions& o, const DeviceLimits& d) {
  if (auto why = validate(p); !why.empty()) throw Error("symm gemm: invalid problem: " + why);
  if (auto why = validate(o); !why.empty()) throw Error("symm gemm: invalid options: " + why);
  if (o.force_fallback) return fallback_plan(p, o, d, "fallback forced (SYMM_GEMM_FORCE_FALLBACK / options)");
  const std::vector<CopyChoice> choices = copy_choices(p, o, d);
  const GemmProblem& launched = choices.front().launched;  // through the needed copies only
  if (o.config) {
    if (auto why = can_implement(*o.config, launched, d); !why.empty()) {
      if (!tma_incompatibility(launched).empty() || d.cc_major != 9)
        return fallback_plan(p, o, d, "WGMMA cannot run it: " + why);
      throw Error(
          fmt::format("symm gemm: configuration {} (SYMM_GEMM_CONFIG) refused: {}", to_string(*o.config), why));
    }
    if (o.pingpong != -1 && o.pingpong != int(o.config->pingpong()))
      throw Error(fmt::format("symm gemm: configuration {} (SYMM_GEMM_CONFIG) is {}ping-pong, but pingpong={} "
                              "(SYMM_GEMM_PINGPONG) rules that out: give a {} configuration",
                              to_string(*o.config), o.config->pingpong() ? "" : "not ", o.pingpong,
                              o.pingpong == 1 ? "ping-pong (...-pingpong)" : "cooperative"));
    if (!schedule_wanted(*o.config, o))
      throw Error(fmt::format("symm gemm: configuration {} (SYMM_GEMM_CONFIG) {} clusters, but clusters={} "
                              "(SYMM_GEMM_CLUSTERS) rules that out: give a configuration {}",
                              to_string(*o.config), o.config->clustered() ? "runs in" : "does not run in",
                              o.clusters, o.clusters == 1 ? "with a cluster (...c2, ...c2x2)" : "without a cluster"));
    if (blocks_for(*o.config, o, d) == 0 && blocks_for(o, d) >= o.config->cluster_blocks())
      throw Error(fmt::format("symm gemm: configuration {} (SYMM_GEMM_CONFIG) runs its blocks in clusters "
                              "of {}, and this device can hold none at once (GPCs too small or taken): "
                              "give a configuration with smaller clusters or none",
                              to_string(*o.config), o.config->cluster_blocks()));
    if (blocks_for(*o.config, o, d) == 0)
      throw Error(fmt::format("symm gemm: configuration {} (SYMM_GEMM_CONFIG) runs its blocks in clusters "
                              "of {}, but num_blocks={} (SYMM_GEMM_SMS): give at least {} blocks, or a "
                              "configuration without a cluster",
                              to_string(*o.config), o.config->cluster_blocks(), o.num_blocks,
                              o.config->cluster_blocks()));
    if (!schedule_allowed(*o.config, o))
      throw Error(fmt::format("symm gemm: configuration {} (SYMM_GEMM_CONFIG) computes whole tiles only; "
                              "it cannot run with k_splits={} (SYMM_GEMM_SPLITS) or stream_k=1 "
                              "(SYMM_GEMM_STREAM_K): drop those or pick a cooperative configuration",
                              to_string(*o.config), o.k_splits));
    // The cheaper way to read straddling rows, for this configuration.
    std::pair<double, Plan> best{std::numeric_limits<double>::infinity(), Plan{}};
    for (const CopyChoice& choice : choices) {
      Plan plan = wgmma_plan(*o.config, choice.launched, o, d, "configuration given");
      const double cost = cost_with(choice, *o.config, plan.sched, plan.num_blocks);
      if (cost < best.first) best = {cost, with_copy_notes(std::move(plan), choice.copies)};
    }
    return std::move(best.second);
  }
  if (auto why = can_implement(kCandidates[0].config, launched, d); !why.empty())
    return fallback_plan(p, o, d, "WGMMA cannot run it: " + why);
  auto plans = candidate_plans(p, o, d, 1);
  if (plans.empty())
    throw Error(fmt::format("symm gemm: no WGMMA configuration is allowed by pingpong={} (SYMM_GEMM_PINGPONG), "
                            "clusters={} (SYMM_GEMM_CLUSTERS) and num_blocks={} (SYMM_GEMM_SMS) on this "
                            "problem; relax one of them",
                            o.pingpong, o.clusters, o.num_blocks));
  return std::move(plans.front());
}

WorkspaceLayout workspace_layout(const Plan& plan) {
  const auto round = [](std::size_t bytes) { return (bytes + 255) / 256 * 256; };
  WorkspaceLayout layout;
  layout.copy_a_bytes = round(plan.copies.a.bytes());
  layout.copy_b_bytes = round(plan.copies.b.bytes());
  layout.copy_c_bytes = round(plan.copies.c.bytes());
  const TileScheduler& s = plan.sched;
  if (s.k_splits < 2 && !s.stream_k()) return layout;
  // WGMMA split-K: per (tile, split but the last); stream-K: per block (its one partial);
  // counters per consumer warpgroup. Fallback: per (tile, split), one counter per tile.
  const bool wgmma = plan.kind == KernelKind::wgmma;
  const std::size_t owners = s.stream_k() ? std::size_t(plan.num_blocks) : std::size_t(s.num_tiles());
  const std::size_t partials = s.stream_k() ? owners : owners * (s.k_splits - (wgmma ? 1 : 0));
  const std::size_t counters = owners * (wgmma ? plan.config.consumers() : 1) * sizeof(int);
  layout.counter_bytes = round(counters);
  layout.partial_bytes = round(partials * plan.config.blk_m * plan.config.blk_n * sizeof(float));
  return layout;
}

std::string plan_mismatch(const GemmProblem& p, const Plan& plan) {
  const KernelConfig& c = plan.config;
  const TileScheduler want = TileScheduler::make(p.m, p.n, p.k, c.unit_rows(), c.unit_cols(), c.blk_k, 1, 1);
  const TileScheduler& s = plan.sched;
  if (want.tiles_m == s.tiles_m && want.tiles_n == s.tiles_n && want.k_iters == s.k_iters) return {};
  return fmt::format("the plan has {} x {} tiles of {} K iterations; M={} N={} K={} needs {} x {} of {}: "
                     "make the plan for this problem (Gemm::plan or tune)",
                     s.tiles_m, s.tiles_n, s.k_iters, p.m, p.n, p.k, want.tiles_m, want.tiles_n, want.k_iters);
}

std::string describe(const GemmProblem& p, const Plan& plan) {
  const std::string kernel =
      plan.kind == KernelKind::wgmma
          ? fmt::format("wgmma {} {} blocks={} gsize_m={} ({} tiles)", to_string(plan.config),
                        plan.sched.stream_k() ? std::string("stream-K")
                                              : fmt::format("k_splits={}", plan.sched.k_splits),
                        plan.num_blocks, plan.sched.gsize_m, plan.sched.num_tiles())
          : fmt::format("fallback mma.sync {} k_splits={} ({} loads, {} blocks)", to_string(plan.config),
                        plan.sched.k_splits, plan.aligned_loads ? "cp.async" : "element-wise",
                        plan.num_blocks);
  return fmt::format("symm gemm: M={} N={} K={} {}->{} B={} lda={} ldb={} ldc={}: {}; {}", p.m, p.n,
                     p.k, to_string(p.in_dtype), to_string(p.out_dtype), to_string(p.b_layout), p.lda,
                     p.ldb, p.ldc, kernel, plan.reason);
}

}  // namespace symm::gemm
