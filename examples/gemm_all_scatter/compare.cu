// The counting kernel of --validate: one grid-stride pass over C and its reference.
#include "compare.hpp"
#include "symm/common/dtype.hpp"
#include "symm/host/cuda_check.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

constexpr int kBlocks = 1024, kThreads = 256;

struct Counters {
  unsigned long long wrong;
  unsigned long long first;  // smallest wrong index; ~0: none
};

template <class T>
__global__ void count_wrong_kernel(const T* c, const float* ref, std::int64_t elements, double rtol,
                                   double atol, Counters* counters) {
  unsigned long long wrong = 0, first = ~0ull;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < elements;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const double got = double(float(c[i])), want = double(ref[i]);
    // Written so that NaN fails: a comparison with NaN is false.
    const bool ok = isfinite(got) && fabs(got - want) <= rtol * fabs(want) + atol;
    if (!ok) {
      ++wrong;
      first = min(first, static_cast<unsigned long long>(i));
    }
  }
  if (wrong > 0) {
    atomicAdd(&counters->wrong, wrong);
    atomicMin(&counters->first, first);
  }
}

template <class T>
float element_at(const void* c, std::int64_t i) {
  T value;
  SYMM_CUDA_CHECK(cudaMemcpy(&value, static_cast<const T*>(c) + i, sizeof(T), cudaMemcpyDeviceToHost));
  return float(value);
}

}  // namespace

Mismatch count_wrong(const void* c, gemm::DType dtype, const float* ref, std::int64_t elements,
                     const Tolerance& tol, cudaStream_t stream) {
  Counters* counters = nullptr;
  SYMM_CUDA_CHECK(cudaMallocAsync(&counters, sizeof(Counters), stream));
  const Counters none{0, ~0ull};
  SYMM_CUDA_CHECK(cudaMemcpyAsync(counters, &none, sizeof none, cudaMemcpyHostToDevice, stream));
  if (dtype == gemm::DType::fp16) {
    count_wrong_kernel<<<kBlocks, kThreads, 0, stream>>>(static_cast<const fp16*>(c), ref, elements,
                                                         tol.rtol, tol.atol, counters);
  } else {
    count_wrong_kernel<<<kBlocks, kThreads, 0, stream>>>(static_cast<const bf16*>(c), ref, elements,
                                                         tol.rtol, tol.atol, counters);
  }
  SYMM_CUDA_CHECK(cudaGetLastError());
  Counters seen{};
  SYMM_CUDA_CHECK(cudaMemcpyAsync(&seen, counters, sizeof seen, cudaMemcpyDeviceToHost, stream));
  SYMM_CUDA_CHECK(cudaFreeAsync(counters, stream));
  SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
  Mismatch m;
  m.wrong = seen.wrong;
  if (seen.wrong == 0) return m;
  m.first = static_cast<std::int64_t>(seen.first);
  m.got = dtype == gemm::DType::fp16 ? element_at<fp16>(c, m.first) : element_at<bf16>(c, m.first);
  SYMM_CUDA_CHECK(cudaMemcpy(&m.expected, ref + m.first, sizeof(float), cudaMemcpyDeviceToHost));
  return m;
}

}  // namespace symm::examples::gemm_all_scatter
