#pragma once
// The tile configurations the fused kernels are built for: the GEMM planner's candidates
// without clusters (cooperative and ping-pong) but the 64x128 ping-pong of small problems,
// and Iris's sweep shapes (128x128x64, 256x128x64, 256x64x64 at 2 and 3 stages). Where the
// GEMM alone would run a tile not built here, the fused plan takes its best candidate that
// is (plan.cc). Ping-pong runs with tma_push only (tiles_pingpong below).
#include <algorithm>
#include <array>
#include <tuple>

#include "symm/gemm/config.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::ops::detail {

using FusedConfigs =
    std::tuple<gemm::TileConfig<128, 256, 64, 4>, gemm::TileConfig<256, 128, 64, 4>,
               gemm::TileConfig<128, 192, 64, 4>, gemm::TileConfig<128, 144, 64, 5>,
               gemm::TileConfig<128, 128, 64, 6>, gemm::TileConfig<128, 128, 64, 2>,
               gemm::TileConfig<128, 128, 64, 3>, gemm::TileConfig<256, 64, 64, 2>,
               gemm::TileConfig<256, 64, 64, 3>, gemm::TileConfig<256, 128, 64, 2>,
               gemm::TileConfig<256, 128, 64, 3>,
               gemm::TileConfig<128, 192, 64, 4, gemm::Schedule::pingpong>,
               gemm::TileConfig<128, 160, 64, 5, gemm::Schedule::pingpong>,
               gemm::TileConfig<128, 128, 64, 6, gemm::Schedule::pingpong>,
               gemm::TileConfig<64, 256, 64, 4, gemm::Schedule::pingpong>>;
inline constexpr auto kFusedConfigs = gemm::ConfigCatalog<FusedConfigs>::all;
// Tile flags and traces hold a slot per consumer warpgroup of a tile: kConsumers of them.
static_assert(std::ranges::all_of(kFusedConfigs, [](const gemm::KernelConfig& c) { return c.consumers() == gemm::kConsumers; }),
              "the fused op's tile flags expect kConsumers consumer warpgroups per block");

// Whether a fused variant may run ping-pong tiles. tma_push pushes each piece a consumer
// stages, whoever computed the tile. The flag hooks (wg_specialization,
// producer_consumer) publish each tile as two row halves, one per consumer; the copy
// loop of fused_sequential does not fit beside a ping-pong consumer's 192 accumulators
// (ptxas spills).
constexpr bool tiles_pingpong(ScatterVariant v) { return v == ScatterVariant::tma_push; }

// Whether a fused variant may run plans that split tiles along K (split-K, stream-K, the
// last wave split): its hook then acts in the unit that finishes each tile (hooks.cuh).
// fused_sequential's copy loop does not fit beside the code that finishes split tiles.
constexpr bool finishes_split_tiles(ScatterVariant v) { return v != ScatterVariant::fused_sequential; }

}  // namespace symm::ops::detail
