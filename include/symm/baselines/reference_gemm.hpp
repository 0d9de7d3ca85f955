#pragma once
// The fp32 reference a GEMM's output is checked against (output_check.hpp): cuBLAS's
// cublasGemmEx with fp32 output and compute, default algorithm, on the same bf16/fp16
// operands. Independent of our GEMM and of the cuBLASLt baseline's tuned algorithm, so
// both can be validated against it.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "symm/gemm/types.hpp"

namespace symm::baselines {

class ReferenceGemm {
 public:
  ReferenceGemm();
  ~ReferenceGemm();
  ReferenceGemm(const ReferenceGemm&) = delete;
  ReferenceGemm& operator=(const ReferenceGemm&) = delete;

  // Enqueues C = A * B on `stream` for p's sizes, operands and layouts (row-major, as
  // symm::gemm sees them); p.c is fp32 (p.out_dtype must say so) with leading dimension p.ldc.
  void run(const gemm::GemmProblem& p, cudaStream_t stream) const;

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace symm::baselines
