#pragma once
// The fused GEMM + all-scatter kernel: blocks [0, gemm_blocks) run the persistent GEMM
// with an epilogue hook that publishes or pushes each tile; with the TileFlagHook, blocks
// [gemm_blocks, grid) are comm blocks that wait for each tile's flags and copy the tile
// to every peer through their shared memory (wg_specialization), and the GEMM blocks join
// them once their own tiles are done (both variants of the hook). The roles branch once,
// at the top, so every block keeps the GEMM's launch bounds and shared memory (the comm
// blocks stage their copies there); the host checks that all blocks fit at once before a
// launch with comm blocks (they wait for GEMM blocks).
#include <type_traits>

#include "hooks.cuh"
#include "push_tiles.cuh"
#include "symm/gemm/persistent_gemm.cuh"

namespace symm::ops::detail {

template <class Hook>
inline constexpr bool kHasCommRole = std::is_same_v<Hook, TileFlagHook>;

template <class Cfg, class In, gemm::BLayout BL, class Hook>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    fused_gemm_kernel(const __grid_constant__ gemm::WgmmaParams p, const __grid_constant__ Hook hook,
                      const __grid_constant__ PushWork push, int gemm_blocks) {
  extern __shared__ std::uint8_t dynamic_smem[];
  // The stream barrier after it may be scheduled now (it waits for this grid's completion
  // itself, stream_barrier_kernel.cu): its launch overlaps the GEMM instead of following it.
  cudaTriggerProgrammaticLaunchCompletion();
  if constexpr (kHasCommRole<Hook>) {
    if (int(blockIdx.x) >= gemm_blocks) {
      static_assert(push_piece_rows(Cfg::BLK_M, Cfg::BLK_N, sizeof(In), Cfg::SMEM_BYTES) > 0,
                    "the GEMM's shared memory holds kPushMinSlots pieces of its tiles");
      static_assert(Cfg::THREADS >= kPushThreads, "push_tiles' loader and storer are in two warps");
      push_tiles(push, dynamic_smem, Cfg::SMEM_BYTES, 0, int(blockIdx.x));
      return;
    }
  }
  gemm::PersistentGemm<Cfg, In, In, BL, Hook>::run(p, hook, dynamic_smem, int(blockIdx.x), gemm_blocks);
  if constexpr (kHasCommRole<Hook>) {
    // Its tiles done, the block copies tiles too: without it the last tiles wait for the
    // few comm blocks while every GEMM SM idles. Its loader and storer are threads of the
    // first consumer warpgroup, whose registers were raised (setmaxnreg), not the producer's.
    static_assert(Cfg::THREADS >= gemm::kWarpgroupThreads + kPushThreads, "a consumer warpgroup's two warps copy");
    gemm::GemmSmem<Cfg, In>::from(dynamic_smem).retire();
    push_tiles(push, dynamic_smem, Cfg::SMEM_BYTES, gemm::kWarpgroupThreads, int(blockIdx.x));
  }
}

}  // namespace symm::ops::detail
