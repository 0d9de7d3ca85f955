#pragma once
// Device-side random operands of the benchmark, so that large problems never round-trip
// through host memory. (The output check is symm::baselines::count_wrong.)
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "symm/gemm/types.hpp"

namespace symm::bench {

// count elements of type t, uniform in [-1, 1), from a counter-based hash of (seed, i).
void fill_uniform(void* data, std::size_t count, gemm::DType t, std::uint64_t seed,
                  cudaStream_t stream);

}  // namespace symm::bench
