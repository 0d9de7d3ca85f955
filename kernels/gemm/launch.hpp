#pragma once
// Launch glue between the host library (.cc) and the kernel instances (.cu). Each
// (input, output, B layout) combination is instantiated in its own generated .cu file
// (see CMakeLists.txt), so the kernels compile in parallel.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "symm/gemm/config.hpp"
#include "symm/gemm/params.hpp"
#include "symm/gemm/types.hpp"

namespace symm::gemm::detail {

struct WgmmaLaunch {
  KernelConfig config;
  int grid = 0;
  int resident_limit = 0;  // split-K/stream-K: SMs, all blocks must be resident; 0: no need
};

template <DType IN, DType OUT, BLayout BL>
void launch_wgmma_typed(const WgmmaLaunch& launch, const WgmmaParams& params, cudaStream_t stream);

template <DType IN, DType OUT, BLayout BL>
void launch_fallback_typed(const KernelConfig& config, bool aligned_loads, const FallbackParams& params,
                           cudaStream_t stream);

// Runtime (dtype, layout) -> the typed instance above.
void launch_wgmma(DType in, DType out, BLayout layout, const WgmmaLaunch& launch,
                  const WgmmaParams& params, cudaStream_t stream);
void launch_fallback(DType in, DType out, BLayout layout, const KernelConfig& config,
                     bool aligned_loads, const FallbackParams& params, cudaStream_t stream);
// Blocks that can be resident at once in clusters of `cluster_blocks`, for kernels whose
// `smem_bytes` of shared memory take a whole SM (cluster_occupancy.cu).
int resident_blocks_in_clusters(int cluster_blocks, int smem_bytes);
// `rows` rows of `row_bytes` from src (rows src_pitch bytes apart) to dst (dst_pitch apart):
// the operand copies (operand_copies.hpp). Addresses and lengths are multiples of 2 bytes.
void copy_rows(void* dst, std::int64_t dst_pitch, const void* src, std::int64_t src_pitch,
               std::int64_t row_bytes, std::int64_t rows, cudaStream_t stream);

}  // namespace symm::gemm::detail
