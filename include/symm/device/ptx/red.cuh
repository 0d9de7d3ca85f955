#pragma once
// Reductions: atomic updates that return nothing (PTX `red`), so the issuing thread
// never waits for the old value to come back from a peer GPU. symm uses them to raise
// flags (signal_add). PTX allows only relaxed and release on `red`.
#include <cstdint>

#include "symm/device/ptx/sem_scope.cuh"

namespace symm::device::ptx {

// red.<sem>.<scope>.global.add.u64
template <cuda::memory_order Order, cuda::thread_scope Scope>
__device__ __forceinline__ void red_add_u64(std::uint64_t* address, std::uint64_t value) {
  static_assert(Order == cuda::memory_order_relaxed || Order == cuda::memory_order_release,
                "red takes relaxed or release");
#define SYMM_EMIT(sem, scope)                                                     \
  asm volatile("red." sem "." scope ".global.add.u64 [%0], %1;"                   \
               :: "l"(address), "l"(value) : "memory");
  SYMM_PTX_SEM_SCOPE(Order, Scope, SYMM_EMIT)
#undef SYMM_EMIT
}

}  // namespace symm::device::ptx
