#pragma once
// The tile configurations the fused kernels are built for: every cooperative (not
// ping-pong) configuration of the GEMM, so the plan's choice and Iris's sweep shapes
// (128x128x64, 256x128x64, 256x64x64 at 2 and 3 stages) all run fused.
#include <array>
#include <tuple>

#include "symm/gemm/config.hpp"

namespace symm::ops::detail {

using FusedConfigs =
    std::tuple<gemm::TileConfig<128, 256, 64, 4>, gemm::TileConfig<256, 128, 64, 4>,
               gemm::TileConfig<128, 192, 64, 4>, gemm::TileConfig<128, 144, 64, 5>,
               gemm::TileConfig<128, 128, 64, 6>, gemm::TileConfig<128, 128, 64, 2>,
               gemm::TileConfig<128, 128, 64, 3>, gemm::TileConfig<256, 64, 64, 2>,
               gemm::TileConfig<256, 64, 64, 3>, gemm::TileConfig<256, 128, 64, 2>,
               gemm::TileConfig<256, 128, 64, 3>>;
inline constexpr auto kFusedConfigs = gemm::ConfigCatalog<FusedConfigs>::all;

}  // namespace symm::ops::detail
