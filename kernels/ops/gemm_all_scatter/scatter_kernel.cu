// The scatter kernel of producer_consumer (waits for each tile's flags while the GEMM
// runs on another stream) and bulk_synchronous (after the GEMM: no waits).
#include "copy_to_peers.cuh"
#include "launch.hpp"
#include "symm/host/cuda_check.hpp"

namespace symm::ops::detail {
namespace {

constexpr int kScatterThreads = 512;

__global__ void __launch_bounds__(kScatterThreads) scatter_kernel(const __grid_constant__ PushWork work) {
  push_tiles(work, int(blockIdx.x), int(gridDim.x));
}

}  // namespace

void launch_scatter(const PushWork& work, int blocks, cudaStream_t stream) {
  scatter_kernel<<<blocks, kScatterThreads, 0, stream>>>(work);
  check_cuda(cudaGetLastError(), "launch of scatter_kernel");
}

}  // namespace symm::ops::detail
