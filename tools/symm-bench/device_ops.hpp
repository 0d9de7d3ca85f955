#pragma once
// Device-side helpers of the benchmark: random operands and an output check, so that
// large problems never round-trip through host memory.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "symm/gemm/types.hpp"

namespace symm::bench {

// count elements of type t, uniform in [-1, 1), from a counter-based hash of (seed, i).
void fill_uniform(void* data, std::size_t count, gemm::DType t, std::uint64_t seed,
                  cudaStream_t stream);

struct OutputCheck {
  double rel_fro = 0;           // ||got - ref||_F / ||ref||_F
  unsigned long long nonfinite = 0;  // NaN or Inf elements of got
};

// Compares rows x cols of got against ref (both type t, leading dimension ld).
OutputCheck compare_outputs(const void* got, const void* ref, std::int64_t rows, std::int64_t cols,
                            std::int64_t ld, gemm::DType t, cudaStream_t stream);

}  // namespace symm::bench
