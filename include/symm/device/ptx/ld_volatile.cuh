#pragma once
// ld.volatile.global.v4.b32: a 16-byte volatile load. Scalar volatile loads come from
// C++ `volatile` accesses; a volatile uint4 cannot be copied in C++, hence this wrapper.
#include <vector_types.h>

namespace symm::device::ptx {

__device__ __forceinline__ uint4 ld_volatile_v4(const uint4* address) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(address)
               : "memory");
  return v;
}

}  // namespace symm::device::ptx
