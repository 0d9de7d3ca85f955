#pragma once
// The device-side check of a C against its fp32 reference: how many elements are wrong,
// and the first of them. Included by .cc and .cu files alike.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>

#include "symm/gemm/types.hpp"

namespace symm::examples::gemm_all_scatter {

// An element is wrong when it is NaN or Inf, or |c - ref| > rtol * |ref| + atol.
// rtol is two units of the 16-bit format's rounding (2^-7 bf16, 2^-10 fp16), C being
// rounded once from fp32; atol = 1e-3 * sqrt(K) covers fp32 accumulation order on
// elements near zero (|C| ~ sqrt(K) for randn operands).
struct Tolerance {
  double rtol = 0, atol = 0;
};
inline Tolerance tolerance(gemm::DType dtype, std::int64_t k) {
  return {dtype == gemm::DType::fp16 ? 1.0 / 1024 : 1.0 / 128, 1e-3 * std::sqrt(double(k))};
}

struct Mismatch {
  std::uint64_t wrong = 0;
  std::int64_t first = -1;  // index (row * N + col) of the first wrong element; -1: none
  float got = 0, expected = 0;  // at `first`
};

// Compares `elements` elements of c (bf16 or fp16) with ref; waits for `stream`.
Mismatch count_wrong(const void* c, gemm::DType dtype, const float* ref, std::int64_t elements,
                     const Tolerance& tol, cudaStream_t stream);

}  // namespace symm::examples::gemm_all_scatter
