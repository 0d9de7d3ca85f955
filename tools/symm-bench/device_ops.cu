// Random fill and output comparison kernels of `symm-bench gemm`.
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

template <class T>
__global__ void compare_kernel(const T* got, const T* ref, std::int64_t rows, std::int64_t cols,
                               std::int64_t ld, double* sums, unsigned long long* nonfinite) {
  double err = 0, norm = 0;
  unsigned long long bad = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < rows * cols;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t at = (i / cols) * ld + i % cols;
    const float g = float(got[at]), r = float(ref[at]);
    if (!isfinite(g)) ++bad;
    else err += double(g - r) * (g - r);
    norm += double(r) * r;
  }
  atomicAdd(&sums[0], err);
  atomicAdd(&sums[1], norm);
  atomicAdd(nonfinite, bad);
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

OutputCheck compare_outputs(const void* got, const void* ref, std::int64_t rows, std::int64_t cols,
                            std::int64_t ld, gemm::DType t, cudaStream_t stream) {
  struct Sums {
    double err_norm[2];
    unsigned long long nonfinite;
  };
  Sums* d = nullptr;
  SYMM_CUDA_CHECK(cudaMalloc(&d, sizeof(Sums)));
  SYMM_CUDA_CHECK(cudaMemsetAsync(d, 0, sizeof(Sums), stream));
  with_type(t, [&](auto zero) {
    using T = decltype(zero);
    compare_kernel<<<kBlocks, kThreads, 0, stream>>>(static_cast<const T*>(got), static_cast<const T*>(ref),
                                                    rows, cols, ld, d->err_norm, &d->nonfinite);
  });
  SYMM_CUDA_CHECK(cudaGetLastError());
  Sums h{};
  SYMM_CUDA_CHECK(cudaMemcpyAsync(&h, d, sizeof(Sums), cudaMemcpyDeviceToHost, stream));
  SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
  SYMM_CUDA_CHECK(cudaFree(d));
  return OutputCheck{std::sqrt(h.err_norm[0] / h.err_norm[1]), h.nonfinite};
}

}  // namespace symm::bench
