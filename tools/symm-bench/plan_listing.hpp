#pragma once
// `symm-bench gemm --plans`: what our GEMM would run, without running it.
#include "gemm_bench.hpp"

namespace symm::bench {

// For each problem and data type of `options`: the plan Gemm::plan gives and, unless a
// configuration is forced or tuning is off, the candidates Gemm::tune would time, each
// with the heuristic's predicted time over the plan's. Dense operands at aligned addresses,
// as symm-bench allocates them. Runs nothing, so it needs no GPU: the limits of the current
// GPU where one is visible, else of an H100 or H200 (said in the first line). Returns the
// exit code: 0, or 2 when the options rule a problem out (said on stderr); a CUDA failure
// while reading the GPU's limits throws symm::Error.
int print_plans(const GemmBenchOptions& options);

}  // namespace symm::bench
