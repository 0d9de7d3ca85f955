#pragma once
// cuBLASLt with the operands and layouts of symm::gemm (bf16/fp16 in; the input type or
// fp32 out; fp32 compute): the cuBLAS baseline of `symm-bench gemm` and the GEMM of the
// GEMM + all-scatter baselines. The algorithm is the fastest of cuBLASLt's heuristic
// candidates by a short timing at construction; the workspace is 64 MiB.
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "symm/gemm/types.hpp"

namespace symm::baselines {

// What a cuBLASLt algorithm runs, in symm::gemm's terms. cuBLASLt computes our row-major
// C = A * B as its column-major C^T = B^T * A^T, so its tile's and cluster's first extent
// is our N; here they read as ours, M first, to compare with our configurations.
struct CublasLtConfig {
  int algo_id = -1;
  std::string tile;       // "128x72": rows (M) x columns (N) of C per block; "undefined"
  std::string stages;     // "64x4": K elements per stage x stages (or "64xAUTO"); "undefined"
  std::string cluster;    // "2x4": blocks along M x along N sharing operands; "auto"
  int k_splits = 1;       // split-K parts, added up by `reduction`
  std::string reduction;  // none, inplace, compute_type, output_type
  std::uint32_t swizzle = 0, custom_option = 0;
  // "128x72x64s4c2x4" (our configurations' form), then "-k3" if K is split 3 ways.
  std::string name() const;
};
CublasLtConfig describe(const cublasLtMatmulAlgo_t& algo);

class CublasLtGemm {
 public:
  // Prepares C = A * B for the sizes, leading dimensions, layouts and types of `p`
  // (row-major, as symm::gemm sees it) and picks the fastest heuristic candidate by
  // running each on p's operands on `stream` (p.c is overwritten). The candidates may
  // assume operands as aligned as p's (up to 256 bytes): run() refuses less aligned ones.
  // With `output_ok` (true where p.c, poisoned before each candidate's first run, now holds
  // an acceptable C), only candidates that pass compete: some of cuBLASLt's split-K
  // candidates reduce in the output type and land several units off (2048 x 32001 x 4096
  // bf16: 14861 elements beyond two units of rounding). If none passes, all compete.
  using OutputCheck = std::function<bool()>;
  CublasLtGemm(const gemm::GemmProblem& p, cudaStream_t stream, const OutputCheck& output_ok = {});
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  // C = A * B on `stream`, with operands laid out as the constructor's problem says.
  void run(const void* a, const void* b, void* c, cudaStream_t stream) const;

  int candidates() const { return candidates_; }
  // "algo i of n (<config name>)[, r refused: wrong output]"
  const std::string& chosen() const { return chosen_; }
  const CublasLtConfig& chosen_config() const { return chosen_config_; }

 private:
  static constexpr std::size_t kWorkspaceBytes = std::size_t{64} << 20;

  std::vector<cublasLtMatmulHeuristicResult_t> heuristic_candidates() const;
  void release() noexcept;
  void check_alignment(const void* operand, std::uint32_t planned, const char* name) const;

  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;  // cuBLASLt's A, B, C
  cublasLtMatmulAlgo_t algo_{};
  void* workspace_ = nullptr;
  std::uint32_t align_a_ = 0, align_b_ = 0, align_c_ = 0;  // bytes; ours (row-major) names
  int candidates_ = 0;
  std::string chosen_;
  CublasLtConfig chosen_config_;
};

// CublasLtGemm's output check for `p`: p's C (p.m x p.n, p.ldc apart: it may be a block
// of columns of a wider C) within output_tolerance of cuBLAS's fp32 product of p's
// operands, computed here once on `stream` (ReferenceGemm). For the baselines, so that
// they time an algorithm whose output passes the check the programs validate with.
CublasLtGemm::OutputCheck matches_reference(const gemm::GemmProblem& p, cudaStream_t stream);

// The largest power of two up to 256 that divides `address` (256 for null): the
// alignment cuBLASLt's algorithms may rely on.
std::uint32_t operand_alignment(std::uintptr_t address);

}  // namespace symm::baselines
