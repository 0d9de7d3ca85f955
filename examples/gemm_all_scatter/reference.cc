// cuBLAS sees column-major matrices: the row-major block C[:, s*n_w:(s+1)*n_w] = A @ B_s
// is its (n_w x M, ldc = N) = B_s^T-as-stored @ A^T-as-stored, so the first operand is
// the shard (transposed on use when it is stored N/world x K) and the second A.
#include "reference.hpp"

#include <cublas_v2.h>
#include <fmt/format.h>

#include "operands.hpp"
#include "symm/common/error.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/log.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(fmt::format("{}{} failed: {} ({}); the reference of --validate cannot be computed",
                            rank_prefix(), call, cublasGetStatusName(status),
                            cublasGetStatusString(status)));
}

// Scratch device memory outside the heap, freed on every path.
struct Scratch {
  explicit Scratch(std::size_t bytes) {
    check_cuda(cudaMalloc(&ptr, bytes), fmt::format("cudaMalloc({} bytes of reference scratch)", bytes),
               "free GPU memory, or validate a smaller problem");
  }
  ~Scratch() { warn_on_cuda_error(cudaFree(ptr), "cudaFree(reference scratch)"); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  void* ptr = nullptr;
};

struct Handle {
  Handle() { check_cublas(cublasCreate(&h), "cublasCreate"); }
  ~Handle() {
    const cublasStatus_t s = cublasDestroy(h);
    if (s == CUBLAS_STATUS_SUCCESS) return;
    try {
      log::warn(fmt::format("{}cublasDestroy(reference) failed: {}", rank_prefix(), cublasGetStatusName(s)));
    } catch (...) {
      // Formatting or logging failed (out of memory): nothing more can be reported.
    }
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  cublasHandle_t h = nullptr;
};

}  // namespace

Reference::Reference(const ops::AllScatterShape& shape, int world, const void* a,
                     std::uint64_t seed, cudaStream_t stream) {
  const std::int64_t m = shape.m, n = shape.n, k = shape.k, n_w = n / world;
  const std::size_t ref_bytes = static_cast<std::size_t>(m * n) * sizeof(float);
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&ref_), ref_bytes), fmt::format("cudaMalloc({} bytes of reference C)", ref_bytes),
             "free GPU memory, or validate a smaller problem");
  try {
    Scratch shard(static_cast<std::size_t>(shard_elements(shape, world)) * gemm::dtype_bytes(shape.dtype));
    Handle handle;
    check_cublas(cublasSetStream(handle.h, stream), "cublasSetStream");
    const cudaDataType in = shape.dtype == gemm::DType::fp16 ? CUDA_R_16F : CUDA_R_16BF;
    const bool nk = shape.b_layout == gemm::BLayout::nk;
    const float alpha = 1, beta = 0;
    for (int s = 0; s < world; ++s) {
      fill_b_shard(shard.ptr, shape, world, s, seed, stream);
      check_cublas(cublasGemmEx(handle.h, nk ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, int(n_w), int(m),
                                int(k), &alpha, shard.ptr, in, int(nk ? k : n_w), a, in, int(k), &beta,
                                ref_ + s * n_w, CUDA_R_32F, int(n), CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT),
                   "cublasGemmEx(reference shard)");
    }
    // The scratch shard is freed when this scope ends: wait for the GEMMs reading it.
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(reference)");
  } catch (...) {
    warn_on_cuda_error(cudaFree(ref_), "cudaFree(reference C)");
    throw;
  }
}

Reference::~Reference() { warn_on_cuda_error(cudaFree(ref_), "cudaFree(reference C)"); }

}  // namespace symm::examples::gemm_all_scatter
