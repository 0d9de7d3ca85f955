#pragma once
// `symm-bench gemm`: our GEMM against cublasLt on the same operands, each output checked
// element-wise first, timed by do_bench with the same L2 flush, interleaved, several
// repeats; a table on stdout and a JSON results file (docs/gemm.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gemm_preset.hpp"
#include "symm/gemm/plan.hpp"

namespace symm::bench {

struct GemmBenchOptions {
  std::vector<GemmShape> shapes;
  std::vector<gemm::DType> dtypes{gemm::DType::bf16, gemm::DType::fp16};
  gemm::BLayout layout = gemm::BLayout::nk;
  std::vector<int> fewer_sms;  // also time ours with SMs - s blocks, for each s
  int repeats = 3, warmup = 5, iters = 20;
  std::uint64_t seed = 0;      // 0: a fresh one
  bool tune = true;            // ours: fastest of the heuristic's best plans (Gemm::tune)
  gemm::GemmOptions gemm;      // main: GemmOptions::from_env(), then the command line
  std::string output;          // JSON path; empty: none
  std::string plans_for;       // --plans for "h100" or "h200"; empty: the visible GPU (none: an H200)
};

// Runs the benchmark; returns the process exit code: 0, or 1 (a failed run) when an output
// is wrong or a problem was too large for the GPU's free memory (skipped, and said). The
// results file is rewritten after every problem, so a run that dies keeps what it measured.
int run_gemm_bench(const GemmBenchOptions& options, int argc, const char* const* argv);

}  // namespace symm::bench
