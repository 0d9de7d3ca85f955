#pragma once
// Problems for planner tests: the planner only inspects addresses for alignment, so they
// need no memory.
#include <cstdint>

#include "symm/gemm/types.hpp"

namespace symm::gemm::test {

inline void* fake(std::uintptr_t addr) { return reinterpret_cast<void*>(addr); }

// Dense row-major operands at 16-byte aligned addresses, bf16 in and out.
inline GemmProblem problem(std::int64_t m, std::int64_t n, std::int64_t k, BLayout l = BLayout::nk) {
  return GemmProblem{m, n, k, fake(0x10000), k, fake(0x20000), l == BLayout::nk ? k : n, l,
                     fake(0x30000), n, DType::bf16, DType::bf16};
}

}  // namespace symm::gemm::test
