// The scatter kernel of producer_consumer (waits for each tile's flags while the GEMM
// runs on another stream, whose blocks join it at their end) and bulk_synchronous (after
// the GEMM: no waits).
#include "launch.hpp"
#include "push_tiles.cuh"
#include "symm/host/cuda_check.hpp"

namespace symm::ops::detail {
namespace {

constexpr int kScatterThreads = kPushThreads;  // push_tiles' loader and storer, a warp each

__global__ void __launch_bounds__(kScatterThreads)
    scatter_kernel(const __grid_constant__ PushWork work, int first_copier) {
  extern __shared__ std::uint8_t staging[];
  push_tiles(work, staging, kScatterSmemBytes, 0, first_copier + int(blockIdx.x));
}

}  // namespace

void configure_scatter_kernel() {
  check_cuda(cudaFuncSetAttribute(scatter_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kScatterSmemBytes),
             "cudaFuncSetAttribute(scatter_kernel)");
}

void launch_scatter(const PushWork& work, int blocks, int first_copier, cudaStream_t stream) {
  scatter_kernel<<<blocks, kScatterThreads, kScatterSmemBytes, stream>>>(work, first_copier);
  check_cuda(cudaGetLastError(), "launch of scatter_kernel");
}

}  // namespace symm::ops::detail
