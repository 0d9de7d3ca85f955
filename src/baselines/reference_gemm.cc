// cuBLAS sees column-major matrices: row-major C (M x N, ldc) = A @ B is its
// C^T (N x M) = B^T @ A^T, so the first operand is B (transposed on use when it is stored
// N x K) and the second A.
#include "symm/baselines/reference_gemm.hpp"

#include <fmt/format.h>

#include "symm/common/error.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/log.hpp"

namespace symm::baselines {
namespace {

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(fmt::format("{}{} failed: {} ({}); the reference of the output check cannot be computed",
                            rank_prefix(), call, cublasGetStatusName(status), cublasGetStatusString(status)));
}

}  // namespace

ReferenceGemm::ReferenceGemm() { check_cublas(cublasCreate(&handle_), "cublasCreate(reference)"); }

ReferenceGemm::~ReferenceGemm() {
  const cublasStatus_t s = cublasDestroy(handle_);
  if (s == CUBLAS_STATUS_SUCCESS) return;
  try {
    log::warn(fmt::format("{}cublasDestroy(reference) failed: {}", rank_prefix(), cublasGetStatusName(s)));
  } catch (...) {
    // Formatting or logging failed (out of memory): nothing more can be reported.
  }
}

void ReferenceGemm::run(const gemm::GemmProblem& p, cudaStream_t stream) const {
  if (p.out_dtype != gemm::DType::fp32 || p.in_dtype == gemm::DType::fp32)
    throw Error("ReferenceGemm: bf16/fp16 operands and an fp32 C expected");
  check_cublas(cublasSetStream(handle_, stream), "cublasSetStream(reference)");
  const cudaDataType in = p.in_dtype == gemm::DType::fp16 ? CUDA_R_16F : CUDA_R_16BF;
  const bool nk = p.b_layout == gemm::BLayout::nk;
  const float alpha = 1, beta = 0;
  check_cublas(cublasGemmEx(handle_, nk ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, int(p.n), int(p.m), int(p.k),
                            &alpha, p.b, in, int(p.ldb), p.a, in, int(p.lda), &beta, p.c, CUDA_R_32F,
                            int(p.ldc), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx(reference)");
}

}  // namespace symm::baselines
