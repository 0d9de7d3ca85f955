// The random fill kernel of `symm-bench gemm`.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "device_ops.hpp"
#include "symm/gemm/element.cuh"
#include "symm/host/cuda_check.hpp"

namespace symm::bench {
namespace {

__device__ float uniform_at(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t x = seed ^ (i * 0x9E3779B97F4A7C15ull);  // splitmix64 of the index
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return float(x >> 40) * (2.0f / float(1 << 24)) - 1.0f;
}

template <class T>
__global__ void fill_kernel(T* data, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x)
    data[i] = T(uniform_at(seed, i));
}

template <class F>
void with_type(gemm::DType t, F&& f) {
  if (t == gemm::DType::bf16) f(__nv_bfloat16{});
  else if (t == gemm::DType::fp16) f(__half{});
  else f(float{});
}

constexpr int kBlocks = 1024, kThreads = 256;

}  // namespace

void fill_uniform(void* data, std::size_t count, gemm::DType t, std::uint64_t seed, cudaStream_t stream) {
  with_type(t, [&](auto zero) {
    using T = decltype(zero);
    fill_kernel<<<kBlocks, kThreads, 0, stream>>>(static_cast<T*>(data), count, seed);
  });
  SYMM_CUDA_CHECK(cudaGetLastError());
}

}  // namespace symm::bench
