#pragma once
// The element-wise check of a GEMM's C against its fp32 reference, shared by every
// program that validates a GEMM (the GEMM + all-scatter driver, symm-bench): the
// tolerance rule, the counting kernel (how many elements are wrong, and the first of
// them) and its one-line description. Included by .cc and .cu files alike.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "symm/common/tensor.hpp"  // SYMM_HOST_DEVICE
#include "symm/gemm/types.hpp"

namespace symm::baselines {

// An element is right when |c - ref| <= rtol * |ref| + atol and c is finite.
struct Tolerance {
  double rtol = 0, atol = 0;
};

// rtol is the output format's machine epsilon, two units of the rounding C gets once from
// fp32 (2^-7 bf16, 2^-10 fp16, 2^-23 fp32); atol = 1e-3 * sqrt(K) covers the fp32
// accumulation order on elements near zero (|C| ~ sqrt(K) for operands of unit scale).
inline Tolerance output_tolerance(gemm::DType out, std::int64_t k) {
  const double rtol = out == gemm::DType::fp16 ? 0x1p-10 : out == gemm::DType::fp32 ? 0x1p-23 : 0x1p-7;
  return {rtol, 1e-3 * std::sqrt(double(k))};
}

// The rule itself, on the host (tests) and in the counting kernel alike. NaN never passes:
// every comparison with NaN is false.
SYMM_HOST_DEVICE bool within_tolerance(double got, double want, const Tolerance& tol) {
  return std::isfinite(got) && std::fabs(got - want) <= tol.rtol * std::fabs(want) + tol.atol;
}

// What count_wrong found; plain data (ranks gather it with Team::all_gather).
struct Mismatch {
  std::uint64_t wrong = 0;
  std::int64_t first = -1;      // index (row * N + col) of the first wrong element; -1: none
  float got = 0, expected = 0;  // at `first`
};

// Compares `elements` elements of c (type `dtype`, contiguous) with ref; waits for `stream`.
Mismatch count_wrong(const void* c, gemm::DType dtype, const float* ref, std::int64_t elements,
                     const Tolerance& tol, cudaStream_t stream);

// "3 wrong elements of C, first at row 1 col 7: got 0.5, expected 2" for a C of `cols`
// columns (m.wrong > 0).
std::string describe(const Mismatch& m, std::int64_t cols, const std::string& buffer);

}  // namespace symm::baselines
