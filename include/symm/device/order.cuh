#pragma once
// Memory order and scope: the rules every ordered operation in symm::device checks.
//
// The vocabulary is CCCL's (cuda::memory_order_*, cuda::thread_scope_*). Orders are
// limited to relaxed, acquire, release and acq_rel, each where it means something
// (a load cannot release, a store cannot acquire); scopes to block, device and system.
// Another rank is another process, even on the same GPU, so an operation on a peer's
// heap must be system-scoped: debug builds trap on a narrower scope there.
#include <cuda/atomic>
#include <cuda/ptx>

#include "symm/device/context.cuh"

namespace symm::device {

enum class Access { load, store, rmw };  // what an operation does to memory

template <cuda::memory_order Order, Access Kind>
inline constexpr bool valid_order_v =
    Order == cuda::memory_order_relaxed ||
    (Order == cuda::memory_order_acquire && Kind != Access::store) ||
    (Order == cuda::memory_order_release && Kind != Access::load) ||
    (Order == cuda::memory_order_acq_rel && Kind == Access::rmw);

template <cuda::thread_scope Scope>
inline constexpr bool valid_scope_v = Scope == cuda::thread_scope_block ||
                                      Scope == cuda::thread_scope_device ||
                                      Scope == cuda::thread_scope_system;

template <cuda::memory_order Order, cuda::thread_scope Scope, Access Kind>
__device__ __forceinline__ constexpr void static_check_order_scope() {
  static_assert(valid_order_v<Order, Kind>,
                "memory order: loads take relaxed|acquire, stores relaxed|release, "
                "read-modify-writes relaxed|acquire|release|acq_rel");
  static_assert(valid_scope_v<Scope>, "scope: thread_scope_block|device|system");
}

// Traps (debug builds) when an operation on `peer`'s heap is scoped narrower than
// system: the other rank would not be guaranteed to see it in order.
template <cuda::thread_scope Scope>
__device__ __forceinline__ void check_peer_scope(const Context& ctx, int peer,
                                                 const char* operation) {
  if constexpr (kDebugChecks && Scope != cuda::thread_scope_system) {
    if (peer != ctx.rank) {
      SYMM_DEVICE_FAIL(ctx.rank,
                       "%s on rank %d's heap with %s scope: an operation another rank "
                       "can see must use cuda::thread_scope_system",
                       operation, peer, Scope == cuda::thread_scope_block ? "block" : "device");
    }
  }
}

// The cuda::ptx tag for a scope, for the wrappers in ptx/.
template <cuda::thread_scope Scope>
__device__ __forceinline__ constexpr auto ptx_scope() {
  static_assert(valid_scope_v<Scope>);
  if constexpr (Scope == cuda::thread_scope_block) {
    return cuda::ptx::scope_cta;
  } else if constexpr (Scope == cuda::thread_scope_device) {
    return cuda::ptx::scope_gpu;
  } else {
    return cuda::ptx::scope_sys;
  }
}

// A fence of the given order and scope (fence.acq_rel.{cta,gpu,sys}; relaxed: none).
// PTX has no acquire-only or release-only fence: both are fence.acq_rel.
template <cuda::memory_order Order, cuda::thread_scope Scope>
__device__ __forceinline__ void fence() {
  static_assert(valid_scope_v<Scope>);
  if constexpr (Order != cuda::memory_order_relaxed) {
    cuda::ptx::fence(cuda::ptx::sem_acq_rel, ptx_scope<Scope>());
  }
}

}  // namespace symm::device
