#pragma once
// Shared-memory addresses as PTX's .shared operands take them, and stmatrix.
#include <cstdint>

namespace symm::ptx {

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// stmatrix (sm_90): the warp stores 8x8 matrices of 16-bit elements. Each thread holds
// one 32-bit register per matrix, the two elements (lane / 4, 2 (lane % 4) + {0, 1}) of
// it (a wgmma accumulator fragment's layout); thread 8 i + r gives the address of row r
// of matrix i, 16 contiguous bytes. TRANS stores each matrix transposed: the element at
// (r, c) goes to row c, position r. Four matrices (x4), or two transposed (x2; lanes 0-15 address).
template <bool TRANS>
__device__ __forceinline__ void stmatrix_x4(std::uint32_t addr, std::uint32_t m0, std::uint32_t m1,
                                            std::uint32_t m2, std::uint32_t m3) {
  if constexpr (TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(m0),
                 "r"(m1), "r"(m2), "r"(m3)
                 : "memory");
  else
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(m0), "r"(m1),
                 "r"(m2), "r"(m3)
                 : "memory");
}

__device__ __forceinline__ void stmatrix_x2_trans(std::uint32_t addr, std::uint32_t m0, std::uint32_t m1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(m0), "r"(m1)
               : "memory");
}

}  // namespace symm::ptx
