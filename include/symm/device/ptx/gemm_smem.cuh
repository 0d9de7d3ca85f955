#pragma once
// Shared-memory address of a generic pointer, as PTX's .shared operands take it.
#include <cstdint>

namespace symm::ptx {

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace symm::ptx
