#pragma once
// The tile configurations the fused kernels are built for, per variant.
//   tma_push: every configuration of the GEMM (gemm/config.hpp: WgmmaConfigs): its hook
//     pushes each piece a consumer stages, whatever the tile's schedule (cooperative,
//     ping-pong, swapped), consumer count or cluster, so the op runs the plan our GEMM
//     alone runs on the shard.
//   wg_specialization, producer_consumer (tile flags) and fused_sequential (the warpgroup
//     copies its rows): cooperative tiles of kConsumers row halves without clusters. Flags
//     are per row half; copiers claim the scheduler's tiles, which a cluster's unit is
//     not; fused_sequential's copy loop does not fit beside a ping-pong consumer's 192
//     accumulators (ptxas spills). Where the GEMM alone would run another tile, the plan
//     takes its best candidate built here (plan.cc).
#include <algorithm>
#include <array>
#include <span>
#include <tuple>

#include "symm/gemm/config.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::ops::detail {

using PushConfigs = gemm::WgmmaConfigs;
inline constexpr auto kPushConfigs = gemm::kWgmmaConfigs;

// The GEMM planner's cooperative candidates without clusters, and Iris's sweep shapes
// (128x128x64, 256x128x64, 256x64x64 at 2 and 3 stages).
using PublishConfigs =
    std::tuple<gemm::TileConfig<128, 256, 64, 4>, gemm::TileConfig<256, 128, 64, 4>,
               gemm::TileConfig<128, 192, 64, 4>, gemm::TileConfig<128, 144, 64, 5>,
               gemm::TileConfig<128, 128, 64, 6>, gemm::TileConfig<128, 128, 64, 2>,
               gemm::TileConfig<128, 128, 64, 3>, gemm::TileConfig<256, 64, 64, 2>,
               gemm::TileConfig<256, 64, 64, 3>, gemm::TileConfig<256, 128, 64, 2>,
               gemm::TileConfig<256, 128, 64, 3>>;
inline constexpr auto kPublishConfigs = gemm::ConfigCatalog<PublishConfigs>::all;
// Tile flags hold a slot per row half: kConsumers cooperative consumers, no cluster.
static_assert(std::ranges::all_of(kPublishConfigs, [](const gemm::KernelConfig& c) {
                return c.schedule == gemm::Schedule::cooperative && c.consumers() == gemm::kConsumers &&
                       !c.clustered();
              }),
              "the flag and copy variants expect kConsumers row halves per tile, without clusters");

// The configurations fused variant v's kernels are built for (the lists above).
constexpr std::span<const gemm::KernelConfig> built_configs(ScatterVariant v) {
  if (v == ScatterVariant::tma_push) return kPushConfigs;
  return kPublishConfigs;
}
constexpr bool built_for(ScatterVariant v, const gemm::KernelConfig& c) {
  return std::ranges::find(built_configs(v), c) != built_configs(v).end();
}

// Whether a fused variant may run plans that split tiles along K (split-K, stream-K, the
// last wave split): its hook then acts in the unit that finishes each tile (hooks.cuh).
// fused_sequential's copy loop does not fit beside the code that finishes split tiles.
constexpr bool finishes_split_tiles(ScatterVariant v) { return v != ScatterVariant::fused_sequential; }

}  // namespace symm::ops::detail
