// The scatter kernel of producer_consumer (waits for each tile's flags while the GEMM
// runs on another stream) and bulk_synchronous (after the GEMM: no waits).
#include <string>

#include "launch.hpp"
#include "push_tiles.cuh"
#include "symm/common/error.hpp"
#include "symm/host/cuda_check.hpp"

namespace symm::ops::detail {
namespace {

// One warp stages rows through 96 KB: two blocks fit an SM beside each other.
constexpr int kScatterThreads = 32;
constexpr int kScatterSmemBytes = kPushBarrierBytes + 96 * 1024;

__global__ void __launch_bounds__(kScatterThreads) scatter_kernel(const __grid_constant__ PushWork work) {
  extern __shared__ __align__(128) std::uint8_t staging[];
  push_tiles(work, staging, kScatterSmemBytes, int(blockIdx.x), int(gridDim.x));
}

}  // namespace

void launch_scatter(const PushWork& work, int blocks, cudaStream_t stream) {
  if (kScatterSmemBytes < push_staging_min_bytes(work.blk_n, work.targets.elem_bytes))
    throw Error("symm gemm_all_scatter: tiles " + std::to_string(work.blk_n) +
                " columns wide need more staging than the scatter kernel's " + std::to_string(kScatterSmemBytes) +
                " bytes (use narrower tiles)");
  check_cuda(cudaFuncSetAttribute(scatter_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kScatterSmemBytes),
             "cudaFuncSetAttribute(scatter_kernel)");
  scatter_kernel<<<blocks, kScatterThreads, kScatterSmemBytes, stream>>>(work);
  check_cuda(cudaGetLastError(), "launch of scatter_kernel");
}

}  // namespace symm::ops::detail
