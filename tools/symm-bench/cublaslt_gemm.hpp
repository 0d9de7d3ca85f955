#pragma once
// The cuBLAS baseline of `symm-bench gemm`: cublasLt with the same operands and layouts
// as our GEMM (bf16/fp16 in and out, fp32 compute), the best of its heuristic candidates
// by a short timing, with a 64 MiB workspace.
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "symm/gemm/types.hpp"

namespace symm::bench {

class CublasLtGemm {
 public:
  // Prepares C = A * B for `p` (row-major, as symm::gemm sees it) and picks the fastest
  // heuristic candidate on `stream`.
  CublasLtGemm(const gemm::GemmProblem& p, cudaStream_t stream);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  void run(cudaStream_t stream) const;
  int candidates() const { return candidates_; }
  const std::string& chosen() const { return chosen_; }  // "algo i of n"

 private:
  static constexpr std::size_t kWorkspaceBytes = std::size_t{64} << 20;

  gemm::GemmProblem p_;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  void* workspace_ = nullptr;
  int candidates_ = 0;
  std::string chosen_;
};

}  // namespace symm::bench
