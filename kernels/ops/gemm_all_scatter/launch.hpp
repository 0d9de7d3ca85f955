#pragma once
// Launch glue between the op (gemm_all_scatter.cc, host) and the kernel instances (.cu).
// The fused kernels are instantiated per (dtype, B layout), one generated .cu file each
// (CMakeLists.txt), so they compile in parallel.
#include <cuda_runtime_api.h>

#include <algorithm>

#include "params.hpp"
#include "symm/gemm/params.hpp"

namespace symm::ops::detail {

// One launch of fused_gemm_kernel.
struct FusedLaunch {
  ScatterVariant variant = ScatterVariant::tma_push;  // picks the hook
  gemm::KernelConfig config;
  int grid = 0;         // blocks in all
  int gemm_blocks = 0;  // blocks computing tiles; the rest are comm blocks
  int sm_count = 0;     // for the co-residency check of grids with comm blocks
  bool check_residency = false;  // comm blocks wait for GEMM blocks: ask the occupancy API
  gemm::WgmmaParams params;
  PeerMaps peer_maps;   // tma_push
  PushWork push;        // targets (fused_sequential, copiers), tile claims and flags
};

template <gemm::DType DT, gemm::BLayout BL>
void launch_fused_typed(const FusedLaunch& launch, cudaStream_t stream);
// Runtime (dtype, layout) -> the typed instance.
void launch_fused(gemm::DType dtype, gemm::BLayout layout, const FusedLaunch& launch,
                  cudaStream_t stream);

// The scatter kernel (producer_consumer, bulk_synchronous): `blocks` blocks push the
// tiles of `work`, waiting for their flags when work.tile_flags.flags is set; in traces
// they are copiers first_copier, first_copier + 1, ... (after the GEMM blocks). Each stages
// its copies through kScatterSmemBytes of shared memory (six pieces: one block per SM),
// which configure_scatter_kernel allows it once per op, on the op's GPU.
inline constexpr int kScatterSmemBytes = push_smem_bytes(6, kPushPieceBytes);
// bulk_synchronous's scatter kernel copies the finished shard in tiles of its own (any
// tiling covers it).
inline constexpr int kBulkTileM = 128, kBulkTileN = 256;
// The shared memory the push role stages through, the least among the blocks that run
// it: wg_specialization's comm blocks and GEMM blocks (the GEMM's), producer_consumer's
// scatter blocks and GEMM blocks (the smaller), bulk_synchronous's scatter blocks.
constexpr int push_staging_bytes(ScatterVariant v, const gemm::KernelConfig& c) {
  if (v == ScatterVariant::wg_specialization) return c.smem_bytes();
  if (v == ScatterVariant::producer_consumer) return std::min(c.smem_bytes(), kScatterSmemBytes);
  return kScatterSmemBytes;
}
void configure_scatter_kernel();
void launch_scatter(const PushWork& work, int blocks, int first_copier, cudaStream_t stream);

// The stream barrier's kernel (stream_barrier.cu).
// exit_time (nullable): where the kernel writes the global timer when it lets this rank go.
void launch_stream_barrier(const device::Context& ctx, std::uint64_t* arrivals, std::uint64_t* epoch,
                           std::uint64_t* exit_time, cudaStream_t stream);

}  // namespace symm::ops::detail
