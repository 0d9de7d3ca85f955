#include <cuda/ptx>

#include "symm/device/context.cuh"
#include "symm/host/cuda_check.hpp"
#include "test_kernels.hpp"

namespace symm::testing {
namespace {

__global__ void write_pattern_kernel(device::Context context, std::uint32_t* slots,
                                     std::size_t count) {
  std::uint32_t* mine = slots + static_cast<std::size_t>(context.rank) * count;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (int peer = 0; peer < context.world; ++peer) {
    std::uint32_t* remote = context.translate(mine, peer);
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
      remote[i] = pattern(context.rank, peer, i);
    }
  }
}

__global__ void copy_context_kernel(device::Context context, std::uint64_t* out) {
  out[0] = static_cast<std::uint64_t>(context.rank);
  out[1] = static_cast<std::uint64_t>(context.world);
  out[2] = context.heap_size;
  for (int r = 0; r < context.world; ++r) out[3 + r] = context.bases[r];
}

__global__ void spin_kernel(std::uint64_t ns) {
  const std::uint64_t start = cuda::ptx::get_sreg_globaltimer();
  while (cuda::ptx::get_sreg_globaltimer() - start < ns) {
  }
}

__global__ void chase_kernel(const std::uint32_t* links, int hops, std::uint32_t* end) {
  std::uint32_t at = 0;
  for (int hop = 0; hop < hops; ++hop) at = __ldcg(links + at);
  *end = at;
}

}  // namespace

void spin_for(std::uint64_t ns, cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>(ns);
  SYMM_CUDA_CHECK(cudaGetLastError());
}

void chase_links(const std::uint32_t* links, int hops, std::uint32_t* end, cudaStream_t stream) {
  chase_kernel<<<1, 1, 0, stream>>>(links, hops, end);
  SYMM_CUDA_CHECK(cudaGetLastError());
}

void write_pattern_to_every_peer(const Runtime& runtime, std::uint32_t* slots, std::size_t count,
                                 cudaStream_t stream) {
  write_pattern_kernel<<<264, 256, 0, stream>>>(runtime.context(), slots, count);
  SYMM_CUDA_CHECK(cudaGetLastError());
}

void copy_context_on_device(const Runtime& runtime, std::uint64_t* out, cudaStream_t stream) {
  copy_context_kernel<<<1, 1, 0, stream>>>(runtime.context(), out);
  SYMM_CUDA_CHECK(cudaGetLastError());
}

}  // namespace symm::testing
