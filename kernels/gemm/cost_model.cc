// The planner's cost model (cost_model.hpp): the candidates' measured efficiencies, the
// K-iteration cost of a decomposition (predicted_cost, plan.hpp), and the floor that
// memory puts under it.
#include "cost_model.hpp"

#include <algorithm>
#include <cmath>

#include "plan_rules.hpp"

namespace symm::gemm {
namespace {

using detail::Candidate;
using detail::kPartialKIters;

// Configurations the heuristic considers; the Iris sweep shapes (2 and 3 stages) run only
// when asked for. Efficiencies: full-tile throughput relative to 128x256x64s4, measured
// on an H200 (docs/gemm.md, runs 1-3). Ping-pong: rated on its mainloop alone (its
// epilogue is hidden, see predicted_cost), from the 2026-12-01 probe, where both shapes
// ran at 0.97-0.98 of 128x256x64s4 on the short-K shapes they should help most.
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
// where the single one ran 0.80 / 0.77 / 0.73 (presets at 7b32d8f, ef98b2b).
// Pairs of 256x128 tiles (one full wave of 132 blocks on up to 1024 rows): 6120 x 3400 x 4104 0.89-0.93 where 2 x 2 clusters of 128x256 ran
// 0.86-0.88 (bench/results/gemm/2026-12-02-pairs-743c91d, -pairs-9514fba).
// 192x160 (three consumers of 64 rows): the same operand rows per output as 128x256, for
// M that 128- and 256-row tiles fit badly; alone and with A shared along a 1 x 2 cluster
// (both rows of a unit straddle less). Alone, first rated 0.95; the tuner then took it over
// the untuned 128x160 ping-pong pairs on every tuned run of 4096 x 1792 x 4096 and
// 1912 x 3760 x 5904 that had it among its candidates, on H200s and an H100 (3-10 % faster
// on H200s, 6-16 % on the H100; bench/results/gemm/2026-12-05-rating-192x160): 0.99, which
// moves those two shapes (B as N x K, either dtype) and no other of the presets' 376
// plans. At 1.00 it would also take 16384 x 4096 x 4096 from 128x256, where the H100's
// tuner kept 128x256.
// 200x128 swapped (config.hpp), alone and with B shared along a 2 x 1 cluster: cuBLASLt's
// tile on 777 x 4104 x 8200 (132 tiles of 200 rows x 128 columns, one wave, 1 x 2 clusters
// in its column-major view; bench/results/gemm/2026-12-02-profile777-59eedd2). The pair
// ran 0.78-0.80 of cuBLASLt there (the 192x160 pair 0.69-0.74) and 0.954 with whole-line
// rows (128x256: 0.815; bench/results/gemm/2026-12-02-swapped-af7799e). Rated 0.94: above
// 0.97 the model would also move 16384 x N x 4096 onto it, where it has not been timed
// untuned; the tuner takes it where it wins (777 rows with either layout of B).
// 144x128 swapped: one wave of 11 x 12 tiles on 1536^3, and tile rows for M that 128 and 256
// fit badly, with any K x N B read without a tail box: 1536^3 K x N 0.99 of cuBLASLt (128x144,
// tail box: 0.92), 3296 x 4336 x 7264 0.97 (128x192 ping-pong 0.93), 864 x 1208 x 9872 K x N
// 0.77 (0.59), but 1536^3 N x K 0.96 against 1.00 for 128x144 and 3072^3 0.97 against 1.01
// for 128x192 ping-pong (bench/results/gemm/2026-12-03-swapped144-c00d629, -heights-eed73a7).
// Rated as 200x128. Swapped tiles of 96, 112 and 176 rows lost on 6 of 8 shapes there.
// 192-column swapped tiles (three consumers): cuBLASLt's tiles on one-wave ragged shapes
// (88x192 pairs on 344 x 6232 x 14872, 144x192 pairs on 3160 x 3384 x 10392). Forced against
// the tuned plan, same call (bench/results/gemm/2026-12-03-swapped192-009a523): 144x192
// pairs 0.956 / 0.905 on 3160 x 3384 x 10392, 0.923 / 0.870 on 4216 x 3848 x 3176, 0.915 /
// 0.893 on 777 x 4104 x 8200, 1.000 / 1.009 on 8192^3, but 0.919 / 0.953 on 6800 x 4024 x
// 5064; alone 0.976 / 0.909 on 4136 x 1680 x 6224 and 0.783 / 0.905 on 3160 x 3384 x 10392;
// 88x192 pairs 0.84 / 0.71 on 344 x 6232 x 14872 (K x N 0.87 / 0.75), but 0.73 on 8192^3
// and 0.79 / 0.91 on 2192 x 4728 x 4376 (n88 wgmmas: more operand bytes per multiply-add),
// rated for that; 88x192 alone lost to its pair (0.64) and is not built. 144x192 alone,
// first rated 0.90, left the untuned plan of 4136 x 1680 x 6224 on 128x144 (0.811: 3 waves
// of 132 tiles, where 144x192 makes 2 of the same area) while the tuner took 144x192 alone
// (0.977; bench/results/gemm/2026-12-03-presets-828da9f):
// rated just above 128x144, as it measured; where pairs fit the same waves they stay ahead.
// 160x256 swapped pairs (B shared down a 2 x 1 cluster; each consumer two 64-column blocks
// of 160 rows): near cuBLASLt's tile on 12296 x 2792 x 1000 (`256x152` in its column-major
// view; bench/results/gemm/2026-12-02-profile-7b32d8f), no K x N tail box, one staging tile
// per consumer. 2500 x 10008 x 3000 with K x N: 0.956 of cuBLASLt (2 x 2 clusters of 128x256:
// 0.91-0.93); on short K its unhidden epilogue costs it (12296 x 2792 x 1000 0.88 against
// 0.89 for 128x256 pairs), and on aligned shapes it trails the row tiles (16384 x 4096 x 4096
// 0.924, 4096 x 4096 x 3584 0.796; bench/results/gemm/2026-12-02-swapped256-90dbe48). First
// rated 0.93; then every tuned run on record of 5120^3 with B as K x N (8 on H200s, 2 on an
// H100, where it beat the untuned 144x128 swapped tiles by 15-17 %) and of 1896 x 2536 x 13384
// (5 on H200s, 1 on an H100: 2.9 % over 256x160 in 1 x 2) took it: 0.98 moves those four
// plans (both dtypes) onto it and no other preset plan on either GPU (tools/report/plan-replay:
// the plan is then the tuner's pick in 526 of 923 tuned H200 runs on record, 513 before; 217
// of 244 H100 runs, 214 before). At 0.99 it would also take 2500 x 10008 x 3000 and three
// ragged shapes, moving H100 plans off the tuner's picks.
// 256x160, alone and with A shared along a 1 x 2 cluster: tile counts that make whole waves
// where 128- and 256-column tiles leave a part-empty one (5120^3: 4.85 waves against 5.8 of
// 128x256); a fourth stage fits beside one staging tile per consumer (config.hpp), whose
// epilogue costs more (kSingleStagingEpilogueKIters). In 2 x 1 clusters (B shared), B as
// N x K: 1.00-1.06 of cuBLASLt on long K (5120^3 1.045, 12288^3 1.000, 16384 x 4096 x 4096
// 1.059), 0.86-0.89 where K is short or rows straddle lines (6120 x 3400 x 4104 0.864
// against 0.894 for 2 x 2 clusters of 128x256, its 256 unshared A rows straddling); alone
// 0.90-1.03 (bench/results/gemm/2026-12-02-wide-da761ac). Sharing A instead loads 288
// rows per K iteration and block, not 336, and straddles as little as 2 x 2 clusters.
// 160x256 swapped in 1 x 4 clusters (A shared by four blocks along N; cuBLASLt's choice
// there): 800 x 5872 x 5976 0.961 of cuBLASLt where 2 x 1 pairs of 200x128 ran 0.765; on
// the other small-M ragged shapes it trailed them (0.67-0.76), and 8-block clusters of
// 80x128 swapped, 192x128 swapped and 128x128 did not pay on any
// (bench/results/gemm/2026-12-05-clusters8). Rated as its 2 x 1 twin (the straddle model
// credits its shared rows): of general.json's and ragged.json's 120 problems the planner
// gives it that one only, at any rating from 0.85 to 0.98.
// 160x192 swapped in 1 x 4 clusters: cuBLASLt's tile on 777 x 4104 x 8200 (5 x 22 tiles, one
// wave of 30 quads): 0.92-0.96 of cuBLASLt where 144x192 pairs ran 0.85-0.88, 0.83 on
// 592 x 5000 x 10680 (0.73-0.75), but 0.68-0.73 where M fits 160 rows badly
// (bench/results/gemm/2026-12-05-l2bound-777). On the aligned twin 768 x 4096 x 8192 it ran
// as fast as the pairs with an 11 % larger tile per block (2026-12-06-twin-777: a quad block
// loads 232 operand rows per K iteration for 30720 outputs, a pair block 240 for 27648),
// which puts it at about 1.08. Of the plans that rating moves (2026-12-06-quad-moves, forced
// against the plan of the day, one call on an H100) it won 3-27 % on 1912 x 3760 x 5904,
// 7192 x 1360 x 6680, 792 x 3360 x 10552 and 777 x 4104 x 8200 (either layout), but lost
// 2-4 % on 840 x 3688 x 1272 (K short) and on 1752 x 5864 x 6688 against 128x256 pairs with K
// split 2, which any rating from 1.04 takes it to. Rated 1.00: the winners on 1912, 7192 and
// (on an H100's limits) 777, not the losers; on an H200's, 777 stays on the pairs, where the
// tuner, whose candidates it is among, takes it.
// 64-row ping-pong tiles in 4 x 1 clusters (B shared by four blocks along M): on 1000^3,
// where rows straddle sectors, 64x144 quads (cuBLASLt's tile and cluster there) ran
// 0.871-0.919 of cuBLASLt and 64x160 0.853-0.859 where the 64x128 pairs ran 0.813-0.848,
// the same calls (kernel 9.70-9.87, 9.90-9.97 and 10.69 us under ncu, cuBLASLt's fastest
// 8.6-8.8; bench/results/gemm/2026-12-06-quads-64row). They lost on the whole-sector twin
// K = 1024 (0.80-0.83 against 0.855), where the straddle model gives them nothing, and on
// 2000 x 1000 x 1000 (two waves: 0.782 against 0.859 for 128x160 ping-pong pairs, the
// straddle model's credit for shared rows being about equal there). Rated 0.75: the
// straddle model credits their shared rows (it put the pairs 1.36x behind on 1000^3,
// measured 1.07x); from 0.78 up it takes them on 2000 x 1000 x 1000 too, below 0.72 no
// longer on 1000^3 with B as K x N on an H200's limits.
constexpr Candidate kCandidates[] = {
    {{128, 256, 64, 4}, 1.00}, {{256, 128, 64, 4}, 0.99}, {{128, 192, 64, 4}, 0.99},
    {{128, 144, 64, 5}, 0.96}, {{128, 128, 64, 6}, 0.94},
    {{128, 256, 64, 4, Schedule::cooperative, 2}, 0.98}, {{128, 192, 64, 4, Schedule::cooperative, 2}, 0.97},
    {{128, 256, 64, 4, Schedule::cooperative, 2, 2}, 0.95},
    {{256, 128, 64, 4, Schedule::cooperative, 2}, 0.97},
    {{192, 160, 64, 4}, 0.99}, {{192, 160, 64, 4, Schedule::cooperative, 1, 2}, 0.94},
    {{256, 160, 64, 4}, 0.95}, {{256, 160, 64, 4, Schedule::cooperative, 1, 2}, 0.98},
    {{200, 128, 64, 4, Schedule::swapped}, 0.94}, {{200, 128, 64, 4, Schedule::swapped, 2}, 0.94},
    {{144, 128, 64, 5, Schedule::swapped}, 0.94},
    {{144, 192, 64, 4, Schedule::swapped, 2}, 0.97}, {{144, 192, 64, 4, Schedule::swapped}, 0.965},
    {{88, 192, 64, 5, Schedule::swapped, 2}, 0.75},
    {{160, 256, 64, 4, Schedule::swapped, 2}, 0.98}, {{152, 256, 64, 4, Schedule::swapped, 2}, 0.93},
    {{160, 256, 64, 4, Schedule::swapped, 1, 4}, 0.98}, {{160, 192, 64, 4, Schedule::swapped, 1, 4}, 1.00},
    {{128, 192, 64, 4, Schedule::pingpong}, 1.00}, {{128, 192, 64, 4, Schedule::pingpong, 2}, 0.98},
    {{128, 160, 64, 5, Schedule::pingpong, 2}, 0.97}, {{128, 160, 64, 5, Schedule::pingpong}, 0.95},
    {{128, 128, 64, 6, Schedule::pingpong}, 0.86}, {{64, 256, 64, 4, Schedule::pingpong}, 0.86},
    {{64, 128, 64, 8, Schedule::pingpong}, 0.80}, {{64, 128, 64, 8, Schedule::pingpong, 2}, 0.81},
    {{64, 144, 64, 7, Schedule::pingpong, 4}, 0.75}, {{64, 160, 64, 6, Schedule::pingpong, 4}, 0.75}};
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

// A K x N B in a tile that is not a multiple of 64 wide: the narrow tail box's wgmma
// (config.hpp, kn_tail_cols) ran the tile at 0.85-0.9 of its N x K twin's speed on long K
// (bench/results/gemm/2026-12-02-kntail-2de35da), 256x160 pairs at 0.91
// (6120 x 3400 x 4104, bench/results/gemm/2026-12-02-wide-791d965).
constexpr double kKnTailEfficiency = 0.88;

// A plan cannot end before memory has delivered A and B once and taken C and the fp32
// partials of split tiles, however its K loops are spread over blocks. On decode-sized M
// that floor is the time: 128x128 tiles with K split 2 (twice the blocks of whole-K 64x128
// tiles) ran 0.65-0.80 of cuBLASLt at M <= 64 where the whole-K tiles ran 0.85-0.98, both
// reading B at about 2.9 TB/s or less (bench/results/gemm/2026-12-02-smallm-2908839). In the
// model's units: a 128x256 tile's K iteration (32768) takes about 0.73 us on an H200 (760
// TFLOP/s), in which memory delivers about 2.1 MB at that rate (scaled by the GPU's
// bandwidth elsewhere).
constexpr double kH200MemoryBytesPerFullTileKIter = 2.1e6;
// A cluster whose tiles lie partly past M or N runs blocks that only load for their
// partners; they lengthen nothing (the wave count already counts their units), so they are
// not charged: the quads' 10 such blocks of 120 on 768 x 4096 x 8192 cost nothing against
// 144x192 pairs with none (bench/results/gemm/2026-12-06-twin-777), where charging them
// per busy block had put the quads 9 % behind. A cluster wider than the problem's tiles
// (pairs on M = 64, where every unit has a block past M) is no candidate at all (plan.cc,
// cluster_wider_than_problem). Among plans held to memory's floor, operand tiles shared in
// a cluster save nothing (memory delivers each byte once either way) and cost the blocks'
// lockstep: pairs ran 0.956 on 128 x 8192 x 8192 where single blocks ran 1.003. A
// thousandth of the model's cost per block of a cluster breaks such ties.
constexpr double kFloorTieBreak = 1e-3;

double memory_floor(const GemmProblem& p, const KernelConfig& c, const TileScheduler& s, int num_blocks,
                    const DeviceLimits& d) {
  const double in = dtype_bytes(p.in_dtype), out = dtype_bytes(p.out_dtype);
  const double tile_partial_bytes = double(c.blk_m) * c.blk_n * 4 * 2;  // written, then read
  const double partials = s.stream_k() ? double(num_blocks) : double(s.split_tiles()) * (s.k_splits - 1);
  const double bytes = in * double(p.k) * double(p.m + p.n) + out * double(p.m) * double(p.n) +
                       partials * tile_partial_bytes;
  return bytes / (kH200MemoryBytesPerFullTileKIter * d.memory_share_of_h200()) * (128.0 * 256.0);
}

}  // namespace

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
    // The whole tiles' waves (dp_tiles: a multiple of the workers), then the split ones'.
    const double dp_waves = std::ceil(double(s.dp_tiles) / workers);
    const double split_waves = std::ceil(double(s.split_tiles()) * s.k_splits / workers);
    const double extra = epilogue_k_iters(c) + kPartialKIters * (s.k_splits - 1);
    busiest = dp_waves * (s.k_iters + epilogue_k_iters(c)) +
              split_waves * (std::ceil(double(s.k_iters) / s.k_splits) + extra);
  }
  return busiest * double(c.blk_m * c.blk_n) / detail::efficiency(c, b_layout);
}

namespace detail {

std::span<const Candidate> heuristic_candidates() { return kCandidates; }

double efficiency(const KernelConfig& c, BLayout b_layout) {
  const double layout = b_layout == BLayout::kn && kn_tail_cols(c.blk_n) > 0 ? kKnTailEfficiency : 1.0;
  for (const auto& cand : kCandidates)
    if (cand.config == c) return cand.efficiency * layout;
  // Shallower pipelines and narrower tiles: less latency hidden, more operand traffic.
  const double shape = double(c.blk_m * c.blk_n) / (128.0 * 256.0);
  return std::min(1.0, 0.55 + 0.35 * shape + 0.05 * c.stages) * layout;
}

double problem_cost(const GemmProblem& p, const KernelConfig& c, const TileScheduler& s, int num_blocks,
                    const DeviceLimits& d) {
  const double compute = predicted_cost(c, s, num_blocks, p.b_layout);
  const double floor = memory_floor(p, c, s, num_blocks, d);
  return compute >= floor ? compute : floor + kFloorTieBreak * compute * c.cluster_blocks();
}

}  // namespace detail
}  // namespace symm::gemm
