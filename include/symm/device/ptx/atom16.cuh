#pragma once
// 16-bit atomics with an explicit order and scope, which cuda::atomic_ref does not
// provide as single instructions: fp16/bf16 add and 16-bit compare-and-swap (sm_70+;
// bf16 add needs sm_90). Values travel as their raw bits. `address` is global memory
// (local heap or a mapped peer heap).
#include <cstdint>

#include "symm/device/ptx/sem_scope.cuh"

namespace symm::device::ptx {

// atom.<sem>.<scope>.global.add.noftz.f16: returns the previous value's bits.
template <cuda::memory_order Order, cuda::thread_scope Scope>
__device__ __forceinline__ std::uint16_t atom_add_f16(std::uint16_t* address,
                                                      std::uint16_t value) {
  std::uint16_t old;
#define SYMM_EMIT(sem, scope)                                                     \
  asm volatile("atom." sem "." scope ".global.add.noftz.f16 %0, [%1], %2;"        \
               : "=h"(old) : "l"(address), "h"(value) : "memory");
  SYMM_PTX_SEM_SCOPE(Order, Scope, SYMM_EMIT)
#undef SYMM_EMIT
  return old;
}

// atom.<sem>.<scope>.global.add.noftz.bf16: returns the previous value's bits.
template <cuda::memory_order Order, cuda::thread_scope Scope>
__device__ __forceinline__ std::uint16_t atom_add_bf16(std::uint16_t* address,
                                                       std::uint16_t value) {
  std::uint16_t old;
#define SYMM_EMIT(sem, scope)                                                     \
  asm volatile("atom." sem "." scope ".global.add.noftz.bf16 %0, [%1], %2;"       \
               : "=h"(old) : "l"(address), "h"(value) : "memory");
  SYMM_PTX_SEM_SCOPE(Order, Scope, SYMM_EMIT)
#undef SYMM_EMIT
  return old;
}

// atom.<sem>.<scope>.global.cas.b16: stores `desired` if the value equals
// `expected`; returns the previous value either way.
template <cuda::memory_order Order, cuda::thread_scope Scope>
__device__ __forceinline__ std::uint16_t atom_cas_b16(std::uint16_t* address,
                                                      std::uint16_t expected,
                                                      std::uint16_t desired) {
  std::uint16_t old;
#define SYMM_EMIT(sem, scope)                                                     \
  asm volatile("atom." sem "." scope ".global.cas.b16 %0, [%1], %2, %3;"          \
               : "=h"(old) : "l"(address), "h"(expected), "h"(desired) : "memory");
  SYMM_PTX_SEM_SCOPE(Order, Scope, SYMM_EMIT)
#undef SYMM_EMIT
  return old;
}

}  // namespace symm::device::ptx
