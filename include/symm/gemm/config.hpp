#pragma once
// Kernel configurations: one compile-time type per persistent WGMMA kernel shape, a
// runtime descriptor of each, and the shared-memory budget both are checked against.
//
// A block is one producer warpgroup (TMA) and CONSUMERS consumer warpgroups (WGMMA),
// in one of three schedules:
//   cooperative: the consumers work on the same tile; consumer w owns rows
//                [w * WG_M, (w + 1) * WG_M) of the (BLK_M, BLK_N) tile. Two consumers,
//                but three of 64 rows in 192-row tiles (a wgmma covers 64 rows, so there
//                are no 96-row parts): a tile height between 128 and 256 rows, for M that
//                neither fills (777 rows: 5 tiles of 192 at 81 % against 7 of 128 at 87 %,
//                but 130 tiles of 192x160 make one wave where 128x256 leaves 13 SMs idle).
//   swapped:     the consumers work on the same tile, consumer w on columns
//                [w * WG_N, (w + 1) * WG_N) and every row, in blocks of 64 (three
//                consumers of one block each in 192-column tiles): its wgmmas multiply
//                B's 64 rows of a block (as the wgmma's A) by A's BLK_M rows (as its B),
//                so they hold the part transposed and the epilogue stores it transposed.
//                The tile's height is then the wgmma's N, any multiple of 8: 777 rows
//                are 4 tiles of 200 (97 % used), and 4 x 33 tiles of 200x128 make one
//                wave on 132 SMs; 160x256 tiles make whole waves of rows that
//                256-row tiles do not (12296 x 2792: 6.4 waves of pairs, 128x256 8.2);
//                192 columns with heights of 88 or 144 rows are cuBLASLt's tiles on
//                one-wave ragged shapes (344 x 6232: 4 x 33 tiles of 88x192).
//   ping-pong:   each consumer owns whole tiles, the block's units taken in turn, so one
//                consumer's epilogue runs while the other's wgmmas keep the tensor cores
//                busy (where K is short, the epilogue is a large share of a tile's time).
//                Whole tiles only: no split-K or stream-K.
// A configuration may run its blocks in clusters of CLUSTER_M x CLUSTER_N tiles (2 x 1,
// 1 x 2, 2 x 2, 1 x 4 or 4 x 1). Blocks in one column of the cluster compute vertically adjacent
// tiles, which read the same B tile: each loads its 1 / CLUSTER_M of it by TMA multicast
// into all of them.
// Blocks in one row share their A tile the same way. L2 then serves each operand tile
// once per cluster row or column, which is what rows straddling 32-byte sectors need
// (copy_choice.cc). The scheduler's unit is the cluster's (CLUSTER_M BLK_M, CLUSTER_N
// BLK_N) tile; all its blocks walk the same units (the same K ranges of split-K and
// stream-K units, each block finishing its own tile), so (ping-pong) the same consumer
// takes a unit in each.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>

#include "symm/gemm/scheduler.hpp"
#include "symm/gemm/types.hpp"

namespace symm::gemm {

// Opt-in shared memory per block on sm_90 (227 KiB); the runtime also asks the device.
inline constexpr int kSm90MaxSmemPerBlock = 232448;
inline constexpr int kWarpgroupThreads = 128;
inline constexpr int kConsumers = 2;             // but 192-row or -column tiles: consumers_for
inline constexpr int kMaxConsumers = 3;          // 192-row or -column tiles: consumers_for
inline constexpr int kSwizzleBytes = 128;        // TMA/WGMMA 128-byte swizzle
inline constexpr int kEpilogueRows = 64;         // rows of one epilogue staging tile
inline constexpr int kSmemAlignSlack = 1024;     // dynamic smem rounded up to 1024 B

// B as K x N arrives in TMA boxes of (64 N, BLK_K K), each row one 128-byte swizzle row,
// and where the tile width is not a multiple of 64 (144, 160), in a last box of the other
// kn_tail_cols columns swizzled over its 32- or 64-byte rows, which a wgmma of its own
// reads. (Every box that narrow ran at 0.64-0.69x of the N x K twin's speed on long K:
// wgmma reads narrowly swizzled rows of a K x N B slowly.)
constexpr int kn_tail_cols(int blk_n) { return blk_n % 64; }

// How the consumer warpgroups share the work (see above). An enum, not a flag: no stray
// integer in an initialiser list can select it.
enum class Schedule : std::uint8_t { cooperative, pingpong, swapped };

// Consumer warpgroups of a block (see above): three for 192-row cooperative tiles and
// 192-column swapped ones, a consumer per 64-row (64-column) block.
constexpr int consumers_for(int blk_m, int blk_n, Schedule schedule) {
  const bool three = schedule == Schedule::cooperative ? blk_m == 3 * 64 : schedule == Schedule::swapped && blk_n == 3 * 64;
  return three ? kMaxConsumers : kConsumers;
}

// Registers per thread after reallocation (setmaxnreg), which only moves registers between
// a block's warps: the block holds THREADS times the per-thread count __launch_bounds__
// (THREADS, 1) gives (a multiple of 8); the producer keeps 40, the consumers share the rest
// in multiples of 8 (232 each of two, 152 of three).
inline constexpr int kProducerRegisters = 40;
constexpr int block_threads(int consumers) { return (consumers + 1) * kWarpgroupThreads; }
constexpr int block_registers(int threads) { return threads * (65536 / threads / 8 * 8); }
constexpr int consumer_registers(int consumers) {
  return (block_registers(block_threads(consumers)) - kWarpgroupThreads * kProducerRegisters) / (kWarpgroupThreads * consumers) / 8 * 8;
}
// What a consumer needs besides its accumulators (descriptors, indices, the epilogue's
// packing): 128x192 ping-pong ran without spills with 192 accumulators in 232 registers.
inline constexpr int kConsumerRegistersBesideAccumulators = 40;

// The one resource budget: compile-time asserts and the run-time refusal both read it.
struct SmemBudget {
  int pipeline = 0;  // (BLK_M + BLK_N) x BLK_K x STAGES operand tiles
  int epilogue = 0;  // staging tiles (64 rows x 128 B) per consumer warpgroup: staging_tiles
  int barriers = 0;  // full + empty mbarrier per stage, a turn per consumer, padded to 1024 B
  constexpr int total() const { return pipeline + epilogue + barriers + kSmemAlignSlack; }
};

constexpr SmemBudget smem_budget(int blk_m, int blk_n, int blk_k, int stages, int consumers, int staging) {
  return SmemBudget{stages * (blk_m + blk_n) * blk_k * 2,
                    consumers * staging * kEpilogueRows * kSwizzleBytes,
                    int(ceil_div((2 * stages + consumers) * 8, 1024)) * 1024};
}

// Staging tiles per consumer: two, so that a piece is staged while the one before is
// stored, unless the ring leaves room for one only. One lets a ring stage more fit (a
// fourth of 256x160 and of 160x256 swapped), at the cost of waiting for each store
// to read its piece before staging the next (only the epilogue pays, once per tile).
// (A fifth stage of 200x128 swapped, cuBLASLt's ring depth on 777 x 4104 x 8200, moved it
// 0.773 -> 0.785 of cuBLASLt in 2 x 1 clusters and 0.68 -> 0.66 alone: not built.)
constexpr int staging_tiles(int blk_m, int blk_n, int blk_k, int stages, int consumers) {
  return smem_budget(blk_m, blk_n, blk_k, stages, consumers, 2).total() <= kSm90MaxSmemPerBlock ? 2 : 1;
}

// Runtime description of a configuration (what the heuristic and the CLI talk about).
struct KernelConfig {
  int blk_m = 0, blk_n = 0, blk_k = 0, stages = 0;
  Schedule schedule = Schedule::cooperative;
  int cluster_m = 1;  // blocks per cluster along M, sharing B's tile (multicast)
  int cluster_n = 1;  // blocks per cluster along N, sharing A's tile (multicast)
  constexpr bool pingpong() const { return schedule == Schedule::pingpong; }
  constexpr bool swapped() const { return schedule == Schedule::swapped; }
  constexpr int consumers() const { return consumers_for(blk_m, blk_n, schedule); }
  constexpr int cluster_blocks() const { return cluster_m * cluster_n; }
  constexpr bool clustered() const { return cluster_blocks() > 1; }
  // Only whole tiles per unit (no split-K, no stream-K): ping-pong, three consumers (the
  // partial sums' loads beside 80 accumulators spill in 152 registers), and clusters and
  // swapped tiles of more than 128 accumulators per consumer thread (256x160 in 1 x 2
  // clusters spilled 16 bytes with the fixup). The fixup keeps each thread's fragments in
  // its own order, so swapped tiles' transposed parts add up like any other.
  constexpr bool whole_tiles_only() const {
    return pingpong() || consumers() > kConsumers || ((clustered() || swapped()) && accumulators() > 128);
  }
  // fp32 accumulators per consumer thread: its part of the tile (ping-pong: all of it) over
  // a warpgroup's threads.
  constexpr int accumulators() const {
    return blk_m * blk_n / (pingpong() ? 1 : consumers()) / kWarpgroupThreads;
  }
  // Rows and columns of C in one unit of the tile scheduler: the cluster's tiles.
  constexpr int unit_rows() const { return blk_m * cluster_m; }
  constexpr int unit_cols() const { return blk_n * cluster_n; }
  constexpr int staging() const { return staging_tiles(blk_m, blk_n, blk_k, stages, consumers()); }
  constexpr int smem_bytes() const {
    return smem_budget(blk_m, blk_n, blk_k, stages, consumers(), staging()).total();
  }
  constexpr bool operator==(const KernelConfig&) const = default;
};

// "128x256x64s4"; "128x128x64s6-pingpong"; "200x128x64s4-swapped"; clusters:
// "128x256x64s4c2" (2 x 1), "...c4" (4 x 1), "...c1x2", "...c2x2", "...c1x4".
std::string to_string(const KernelConfig& c);
bool parse_config(const std::string& text, KernelConfig& out);  // inverse of to_string

template <int BM, int BN, int BK, int S, Schedule SCHED = Schedule::cooperative, int CM = 1, int CN = 1>
struct TileConfig {
  static constexpr int BLK_M = BM, BLK_N = BN, BLK_K = BK, STAGES = S;
  static constexpr bool PINGPONG = SCHED == Schedule::pingpong;
  static constexpr bool SWAPPED = SCHED == Schedule::swapped;
  static constexpr int CLUSTER_M = CM, CLUSTER_N = CN, CLUSTER_BLOCKS = CM * CN;
  static constexpr bool CLUSTERED = CLUSTER_BLOCKS > 1;
  static constexpr int A_PART_ROWS = BM / CN;  // rows of A each block of a cluster row loads
  static constexpr int B_PART_ROWS = BN / CM;  // nk: rows of B each block of a cluster column loads
  static constexpr int CONSUMERS = consumers_for(BM, BN, SCHED);
  // The part of a tile consumer w computes: WG_M x WG_N from (w * WG_ROW_STRIDE, w * WG_COL_STRIDE).
  static constexpr int WG_M = PINGPONG || SWAPPED ? BLK_M : BLK_M / CONSUMERS;
  static constexpr int WG_N = SWAPPED ? BLK_N / CONSUMERS : BLK_N;
  static constexpr int WG_ROW_STRIDE = PINGPONG || SWAPPED ? 0 : WG_M;
  static constexpr int WG_COL_STRIDE = SWAPPED ? WG_N : 0;
  // A consumer's accumulators: ACC_BLOCKS wgmma results (m64 row blocks) of ACC fp32 each
  // per thread; swapped, one per 64-column block, of BLK_M / 2 each (the wgmma's N is the
  // tile's height).
  static constexpr int ACC_BLOCKS = SWAPPED ? WG_N / 64 : WG_M / 64;
  static constexpr int ACC = SWAPPED ? BLK_M / 2 : BLK_N / 2;
  static constexpr int READERS_PER_STAGE = PINGPONG ? 1 : CONSUMERS;  // consumers reading a stage
  static constexpr int THREADS = block_threads(CONSUMERS);
  static constexpr KernelConfig desc{BM, BN, BK, S, SCHED, CM, CN};
  static constexpr bool WHOLE_TILES_ONLY = desc.whole_tiles_only();
  static constexpr int STAGING = desc.staging();  // staging tiles per consumer
  static constexpr int SMEM_BYTES = desc.smem_bytes();
  static constexpr int CONSUMER_REGISTERS = consumer_registers(CONSUMERS);

  static_assert(BLK_K * 2 == kSwizzleBytes, "a K row of the tile is one 128-byte swizzle row");
  static_assert(SWAPPED || (WG_M % 64 == 0 && WG_M <= 128 && (PINGPONG || WG_M * CONSUMERS == BLK_M)),
                "a consumer owns one or two m64 row blocks, the consumers together the tile");
  static_assert(!SWAPPED || (WG_N % 64 == 0 && WG_N * CONSUMERS == BLK_N && BLK_M % 8 == 0),
                "a swapped tile: blocks of 64 columns per consumer, rows a multiple of 8 (the wgmma's N)");
  static_assert(BLK_N % 16 == 0 && BLK_N >= 64 && BLK_N <= 256,
                "wgmma N is 64..256; the epilogue's last piece is 32 or 64 bytes wide");
  static_assert(BLK_M <= 256 && BLK_N <= 256, "a TMA box spans at most 256 rows");
  // ptxas -Werror also refuses any spill.
  static_assert(ACC_BLOCKS * ACC == desc.accumulators(), "one count of a consumer's accumulators");
  static_assert(ACC_BLOCKS * ACC + kConsumerRegistersBesideAccumulators <= CONSUMER_REGISTERS,
                "accumulators must fit the consumer registers");
  static_assert(STAGES >= 2, "the ring needs at least double buffering");
  // 8-block clusters ran no faster than these (docs/gemm.md) and the planner knows how many
  // clusters of up to 4 fit at once only (DeviceLimits).
  static_assert((CM == 1 || CM == 2 || CM == 4) && (CN == 1 || CN == 2 || CN == 4) && CLUSTER_BLOCKS <= 4,
                "clusters: 1, 2 or 4 blocks along M and N, at most 4 in all");
  // A part may start inside an 8-row swizzle atom (36 rows of 144 in 4 x 1 clusters): TMA
  // swizzles by the shared-memory address, as the wgmma reads it.
  static_assert(A_PART_ROWS * CN == BM && B_PART_ROWS * CM == BN, "each block's part of a shared tile is whole rows");
  static_assert(SMEM_BYTES <= kSm90MaxSmemPerBlock, "shared memory over the sm_90 limit");
};

// Every configuration built into the library: the heuristic's candidates (cooperative,
// clusters, then ping-pong), then the 2/3-stage shapes Iris users sweep.
using WgmmaConfigs = std::tuple<TileConfig<128, 256, 64, 4>, TileConfig<256, 128, 64, 4>,
                                TileConfig<128, 192, 64, 4>, TileConfig<128, 144, 64, 5>,
                                TileConfig<128, 128, 64, 6>,
                                TileConfig<128, 256, 64, 4, Schedule::cooperative, 2>,
                                TileConfig<128, 192, 64, 4, Schedule::cooperative, 2>,
                                TileConfig<128, 256, 64, 4, Schedule::cooperative, 2, 2>,
                                TileConfig<256, 128, 64, 4, Schedule::cooperative, 2>,
                                TileConfig<256, 160, 64, 4>, TileConfig<256, 160, 64, 4, Schedule::cooperative, 1, 2>,
                                TileConfig<192, 160, 64, 4>, TileConfig<192, 160, 64, 4, Schedule::cooperative, 1, 2>,
                                TileConfig<200, 128, 64, 4, Schedule::swapped>,
                                TileConfig<144, 128, 64, 5, Schedule::swapped>,
                                TileConfig<200, 128, 64, 4, Schedule::swapped, 2>,
                                TileConfig<160, 256, 64, 4, Schedule::swapped, 2>,
                                TileConfig<152, 256, 64, 4, Schedule::swapped, 2>,
                                TileConfig<88, 192, 64, 5, Schedule::swapped, 2>,
                                TileConfig<144, 192, 64, 4, Schedule::swapped>,
                                TileConfig<144, 192, 64, 4, Schedule::swapped, 2>,
                                TileConfig<160, 256, 64, 4, Schedule::swapped, 1, 4>,
                                TileConfig<160, 192, 64, 4, Schedule::swapped, 1, 4>,
                                TileConfig<128, 128, 64, 6, Schedule::pingpong>,
                                TileConfig<128, 160, 64, 5, Schedule::pingpong>,
                                TileConfig<128, 160, 64, 5, Schedule::pingpong, 2>,
                                TileConfig<128, 192, 64, 4, Schedule::pingpong>,
                                TileConfig<128, 192, 64, 4, Schedule::pingpong, 2>,
                                TileConfig<64, 128, 64, 8, Schedule::pingpong>,
                                TileConfig<64, 128, 64, 8, Schedule::pingpong, 2>,
                                TileConfig<64, 144, 64, 7, Schedule::pingpong, 4>,
                                TileConfig<64, 160, 64, 6, Schedule::pingpong, 4>,
                                TileConfig<64, 256, 64, 4, Schedule::pingpong>,
                                TileConfig<128, 128, 64, 2>, TileConfig<128, 128, 64, 3>,
                                TileConfig<256, 64, 64, 2>, TileConfig<256, 64, 64, 3>,
                                TileConfig<256, 128, 64, 2>, TileConfig<256, 128, 64, 3>>;

template <class Tuple>
struct ConfigCatalog;
template <class... Cfg>
struct ConfigCatalog<std::tuple<Cfg...>> {
  static constexpr std::array<KernelConfig, sizeof...(Cfg)> all{Cfg::desc...};
};
inline constexpr auto kWgmmaConfigs = ConfigCatalog<WgmmaConfigs>::all;

constexpr bool is_built(const KernelConfig& c) {
  for (const KernelConfig& built : kWgmmaConfigs)
    if (built == c) return true;
  return false;
}

// "128x256x64s4, 128x192x64s4-pingpong, ...": configurations named for a message.
std::string config_names(std::span<const KernelConfig> configs);

// The portable mma.sync kernel: (BM, BN, 64) tiles, 4 warps of (64, BN / 2), 3 stages
// (96 KiB or less: two blocks per SM on Hopper, and one fits any sm_80+ GPU).
template <int BM, int BN>
struct FallbackTile {
  static constexpr int BLK_M = BM, BLK_N = BN, BLK_K = 64, STAGES = 3;
  static constexpr int WARPS_M = 2, WARPS_N = 2, THREADS = WARPS_M * WARPS_N * 32;
  static constexpr int BLOCKS_PER_SM = 2;
  static constexpr int WARP_M = BLK_M / WARPS_M, WARP_N = BLK_N / WARPS_N;
  static constexpr int SMEM_BYTES = STAGES * (BLK_M + BLK_N) * BLK_K * 2;
  static constexpr KernelConfig desc{BLK_M, BLK_N, BLK_K, STAGES};
  static_assert(WARP_M % 16 == 0 && WARP_N % 16 == 0, "whole ldmatrix x4 fragments per warp");
};
using FallbackConfig = FallbackTile<128, 128>;
// 96 columns: shards of N = 576 (8 ranks of 4608) fill whole tiles.
using FallbackNarrowConfig = FallbackTile<128, 96>;

// The fallback reads a K x N B tile by warps of 64 columns (one swizzle row): B as K x N
// only with 128-column tiles (two warps across).
constexpr bool fallback_takes(const KernelConfig& c, BLayout layout) {
  return layout == BLayout::nk || c.blk_n == 64 * FallbackConfig::WARPS_N;
}

}  // namespace symm::gemm
