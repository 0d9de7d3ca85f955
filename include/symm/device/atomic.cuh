#pragma once
// Atomics on any rank's heap: add sub cas xchg and or xor min max, plus ordered
// load and store, with a cuda::memory_order and a cuda::thread_scope.
//
//   old = atomic_add<cuda::memory_order_relaxed>(ctx, counter, peer, 1);
//
// `local` is an address in this rank's heap; the operation applies to rank `peer`'s
// copy. Defaults: acq_rel for read-modify-writes, acquire for loads, release for
// stores; system scope (anything another rank sees must be system-scoped: debug
// builds trap on block or device scope with peer != ctx.rank).
//
// Each operation compiles to one PTX instruction (tests/cpu/device checks it):
//   add, sub   int32/uint32/int64/uint64, float, double, fp16, bf16   (atom.add)
//   and/or/xor int32/uint32/int64/uint64                              (atom.and ...)
//   min, max   int32/uint32/int64/uint64; float, double (see below)   (atom.min/max)
//   xchg       int32/uint32/int64/uint64, float, double               (atom.exch)
//   cas        every 16-, 32- and 64-bit type above                  (atom.cas)
//   load/store every 16-, 32- and 64-bit type above                  (ld/st.<sem>)
// PTX has no floating-point atom.min/max, so float and double use the integer order
// of their bits: for v >= +0, signed max/min; for negative v, unsigned min/max (IEEE
// values order like sign-magnitude integers). One instruction, any order. -0.0 counts
// as below +0.0; NaN operands give an unspecified result.
#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <concepts>
#include <type_traits>

#include "symm/device/bits.cuh"
#include "symm/device/context.cuh"
#include "symm/device/order.cuh"
#include "symm/device/ptx/atom16.cuh"

namespace symm::device {

template <class T>
concept AtomicInteger = std::integral<T> && !std::same_as<T, bool> &&
                        (sizeof(T) == 4 || sizeof(T) == 8);
template <class T>
concept AtomicFloat = std::same_as<T, float> || std::same_as<T, double>;
template <class T>
concept AtomicHalf = std::same_as<T, __half> || std::same_as<T, __nv_bfloat16>;
template <class T>
concept AtomicArithmetic = AtomicInteger<T> || AtomicFloat<T> || AtomicHalf<T>;
template <class T>
concept AtomicWord = AtomicArithmetic<T> || (std::integral<T> && sizeof(T) == 2);

namespace detail {

inline constexpr auto kDefaultRmwOrder = cuda::memory_order_acq_rel;
inline constexpr auto kSystem = cuda::thread_scope_system;

// Checks the scope, then gives the peer's copy of `local`.
template <cuda::memory_order Order, cuda::thread_scope Scope, Access Kind, class T>
__device__ __forceinline__ T* target(const Context& ctx, T* local, int peer,
                                     const char* operation) {
  static_check_order_scope<Order, Scope, Kind>();
  check_peer_scope<Scope>(ctx, peer, operation);
  return ctx.translate(local, peer);
}

// cuda::atomic_ref on the raw bits of *address.
template <cuda::thread_scope Scope, class T>
__device__ __forceinline__ auto bits_ref(T* address) {
  return cuda::atomic_ref<bits_t<T>, Scope>(*reinterpret_cast<bits_t<T>*>(address));
}

template <cuda::memory_order Order, cuda::thread_scope Scope, class T>
__device__ __forceinline__ T half_add(T* address, T value) {
  auto* raw = reinterpret_cast<std::uint16_t*>(address);
  if constexpr (std::same_as<T, __half>) {
    return from_bits<T>(ptx::atom_add_f16<Order, Scope>(raw, to_bits(value)));
  } else {
    return from_bits<T>(ptx::atom_add_bf16<Order, Scope>(raw, to_bits(value)));
  }
}

// Float min (IsMax = false) or max through the integer order of the bits.
template <bool IsMax, cuda::memory_order Order, cuda::thread_scope Scope, AtomicFloat T>
__device__ __forceinline__ T float_extremum(T* address, T value) {
  using Signed = std::make_signed_t<bits_t<T>>;
  using Unsigned = bits_t<T>;
  if (cuda::std::bit_cast<Signed>(value) >= 0) {
    cuda::atomic_ref<Signed, Scope> ref(*reinterpret_cast<Signed*>(address));
    const Signed v = cuda::std::bit_cast<Signed>(value);
    return cuda::std::bit_cast<T>(IsMax ? ref.fetch_max(v, Order) : ref.fetch_min(v, Order));
  }
  cuda::atomic_ref<Unsigned, Scope> ref(*reinterpret_cast<Unsigned*>(address));
  const Unsigned v = cuda::std::bit_cast<Unsigned>(value);
  return cuda::std::bit_cast<T>(IsMax ? ref.fetch_min(v, Order) : ref.fetch_max(v, Order));
}

}  // namespace detail

template <cuda::memory_order Order = detail::kDefaultRmwOrder,
          cuda::thread_scope Scope = detail::kSystem, AtomicArithmetic T>
__device__ __forceinline__ T atomic_add(const Context& ctx, T* local, int peer, T value) {
  T* p = detail::target<Order, Scope, Access::rmw>(ctx, local, peer, "atomic_add");
  if constexpr (AtomicHalf<T>) {
    return detail::half_add<Order, Scope>(p, value);
  } else {
    return cuda::atomic_ref<T, Scope>(*p).fetch_add(value, Order);
  }
}

template <cuda::memory_order Order = detail::kDefaultRmwOrder,
          cuda::thread_scope Scope = detail::kSystem, AtomicArithmetic T>
__device__ __forceinline__ T atomic_sub(const Context& ctx, T* local, int peer, T value) {
  T* p = detail::target<Order, Scope, Access::rmw>(ctx, local, peer, "atomic_sub");
  if constexpr (AtomicHalf<T>) {
    return detail::half_add<Order, Scope>(p, -value);
  } else {
    return cuda::atomic_ref<T, Scope>(*p).fetch_sub(value, Order);
  }
}

// Stores `desired` where the value equals `expected` (bitwise); returns the value found.
template <cuda::memory_order Order = detail::kDefaultRmwOrder,
          cuda::thread_scope Scope = detail::kSystem, AtomicWord T>
__device__ __forceinline__ T atomic_cas(const Context& ctx, T* local, int peer, T expected,
                                        T desired) {
  T* p = detail::target<Order, Scope, Access::rmw>(ctx, local, peer, "atomic_cas");
  if constexpr (sizeof(T) == 2) {
    return from_bits<T>(ptx::atom_cas_b16<Order, Scope>(
        reinterpret_cast<std::uint16_t*>(p), to_bits(expected), to_bits(desired)));
  } else {
    auto seen = to_bits(expected);
    detail::bits_ref<Scope>(p).compare_exchange_strong(seen, to_bits(desired), Order);
    return from_bits<T>(seen);
  }
}

template <cuda::memory_order Order = detail::kDefaultRmwOrder,
          cuda::thread_scope Scope = detail::kSystem, class T>
  requires AtomicInteger<T> || AtomicFloat<T>
__device__ __forceinline__ T atomic_xchg(const Context& ctx, T* local, int peer, T value) {
  T* p = detail::target<Order, Scope, Access::rmw>(ctx, local, peer, "atomic_xchg");
  return from_bits<T>(detail::bits_ref<Scope>(p).exchange(to_bits(value), Order));
}

template <cuda::memory_order Order = detail::kDefaultRmwOrder,
          cuda::thread_scope Scope = detail::kSystem, AtomicInteger T>
__device__ __forceinline__ T atomic_and(const Context& ctx, T* local, int peer, T value) {
  T* p = detail::target<Order, Scope, Access::rmw>(ctx, local, peer, "atomic_and");
  return cuda::atomic_ref<T, Scope>(*p).fetch_and(value, Order);
}

template <cuda::memory_order Order = detail::kDefaultRmwOrder,
          cuda::thread_scope Scope = detail::kSystem, AtomicInteger T>
__device__ __forceinline__ T atomic_or(const Context& ctx, T* local, int peer, T value) {
  T* p = detail::target<Order, Scope, Access::rmw>(ctx, local, peer, "atomic_or");
  return cuda::atomic_ref<T, Scope>(*p).fetch_or(value, Order);
}

template <cuda::memory_order Order = detail::kDefaultRmwOrder,
          cuda::thread_scope Scope = detail::kSystem, AtomicInteger T>
__device__ __forceinline__ T atomic_xor(const Context& ctx, T* local, int peer, T value) {
  T* p = detail::target<Order, Scope, Access::rmw>(ctx, local, peer, "atomic_xor");
  return cuda::atomic_ref<T, Scope>(*p).fetch_xor(value, Order);
}

template <cuda::memory_order Order = detail::kDefaultRmwOrder,
          cuda::thread_scope Scope = detail::kSystem, class T>
  requires AtomicInteger<T> || AtomicFloat<T>
__device__ __forceinline__ T atomic_min(const Context& ctx, T* local, int peer, T value) {
  T* p = detail::target<Order, Scope, Access::rmw>(ctx, local, peer, "atomic_min");
  if constexpr (AtomicFloat<T>) {
    return detail::float_extremum<false, Order, Scope>(p, value);
  } else {
    return cuda::atomic_ref<T, Scope>(*p).fetch_min(value, Order);
  }
}

template <cuda::memory_order Order = detail::kDefaultRmwOrder,
          cuda::thread_scope Scope = detail::kSystem, class T>
  requires AtomicInteger<T> || AtomicFloat<T>
__device__ __forceinline__ T atomic_max(const Context& ctx, T* local, int peer, T value) {
  T* p = detail::target<Order, Scope, Access::rmw>(ctx, local, peer, "atomic_max");
  if constexpr (AtomicFloat<T>) {
    return detail::float_extremum<true, Order, Scope>(p, value);
  } else {
    return cuda::atomic_ref<T, Scope>(*p).fetch_max(value, Order);
  }
}

// Ordered load (ld.relaxed/acquire.<scope>) of rank `peer`'s copy of *local.
template <cuda::memory_order Order = cuda::memory_order_acquire,
          cuda::thread_scope Scope = detail::kSystem, AtomicWord T>
__device__ __forceinline__ T atomic_load(const Context& ctx, const T* local, int peer) {
  const T* p = detail::target<Order, Scope, Access::load>(ctx, local, peer, "atomic_load");
  return from_bits<T>(detail::bits_ref<Scope>(const_cast<T*>(p)).load(Order));
}

// Ordered store (st.relaxed/release.<scope>) to rank `peer`'s copy of *local.
template <cuda::memory_order Order = cuda::memory_order_release,
          cuda::thread_scope Scope = detail::kSystem, AtomicWord T>
__device__ __forceinline__ void atomic_store(const Context& ctx, T* local, int peer, T value) {
  T* p = detail::target<Order, Scope, Access::store>(ctx, local, peer, "atomic_store");
  detail::bits_ref<Scope>(p).store(to_bits(value), Order);
}

}  // namespace symm::device
