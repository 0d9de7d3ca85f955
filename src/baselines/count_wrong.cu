// The counting kernel of the output check: one grid-stride pass over C and its reference.
#include "symm/host/cuda_resources.hpp"
#include "symm/baselines/output_check.hpp"
#include "symm/common/dtype.hpp"
#include "symm/host/cuda_check.hpp"

namespace symm::baselines {
namespace {

constexpr int kBlocks = 1024, kThreads = 256;

struct Counters {
  unsigned long long wrong;
  unsigned long long first;  // smallest wrong index; ~0: none
};

template <class T>
__global__ void count_wrong_kernel(const T* c, const float* ref, std::int64_t elements, Tolerance tol,
                                   Counters* counters) {
  unsigned long long wrong = 0, first = ~0ull;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < elements;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    if (!within_tolerance(double(float(c[i])), double(ref[i]), tol)) {
      ++wrong;
      first = min(first, static_cast<unsigned long long>(i));
    }
  }
  if (wrong > 0) {
    atomicAdd(&counters->wrong, wrong);
    atomicMin(&counters->first, first);
  }
}

template <class F>
void with_type(gemm::DType t, F&& f) {
  if (t == gemm::DType::bf16) f(bf16{});
  else if (t == gemm::DType::fp16) f(fp16{});
  else f(float{});
}

}  // namespace

Mismatch count_wrong(const void* c, gemm::DType dtype, const float* ref, std::int64_t elements,
                     const Tolerance& tol, cudaStream_t stream) {
  // Owned: an error on any call below frees it (cudaFree waits for the kernel).
  const DeviceBuffer counters(sizeof(Counters), "output check counters");
  auto* seen_d = static_cast<Counters*>(counters.get());
  const Counters none{0, ~0ull};
  SYMM_CUDA_CHECK(cudaMemcpyAsync(seen_d, &none, sizeof none, cudaMemcpyHostToDevice, stream));
  with_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    count_wrong_kernel<<<kBlocks, kThreads, 0, stream>>>(static_cast<const T*>(c), ref, elements, tol, seen_d);
  });
  SYMM_CUDA_CHECK(cudaGetLastError());
  Counters seen{};
  SYMM_CUDA_CHECK(cudaMemcpyAsync(&seen, seen_d, sizeof seen, cudaMemcpyDeviceToHost, stream));
  SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
  Mismatch m;
  m.wrong = seen.wrong;
  if (seen.wrong == 0) return m;
  m.first = static_cast<std::int64_t>(seen.first);
  with_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    T value;
    SYMM_CUDA_CHECK(cudaMemcpy(&value, static_cast<const T*>(c) + m.first, sizeof(T), cudaMemcpyDeviceToHost));
    m.got = float(value);
  });
  SYMM_CUDA_CHECK(cudaMemcpy(&m.expected, ref + m.first, sizeof(float), cudaMemcpyDeviceToHost));
  return m;
}

}  // namespace symm::baselines
