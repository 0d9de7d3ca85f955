#pragma once
// Remote memory access, one element per call: load, store, get, put, copy between this
// rank's memory and any rank's heap. An element is anything of 1, 2, 4, 8 or 16 bytes
// (Vec16<T> is the 16-byte vector: one ld/st.global.v4). Cooperative ranges and tiles
// are in tile.cuh; ordered accesses (acquire/release) are atomic_load/atomic_store in
// atomic.cuh. These accesses are weak: order them with a flag (signal.cuh) or a
// barrier (barrier.cuh).
//
//   float x = load(ctx, &a[i], peer);            // rank peer's a[i]
//   store<StoreCache::write_through>(ctx, &b[i], peer, x);
//   put(ctx, &b[i], &mine[i], peer, i < n);      // masked: does nothing when false
#include <type_traits>

#include "symm/device/bits.cuh"
#include "symm/device/context.cuh"
#include "symm/device/ptx/ld_volatile.cuh"

namespace symm::device {

// Cache behaviour of a load (Iris's cache modifiers; PTX ld.global.<cop>).
enum class LoadCache {
  normal,     // ld.global: cached in L1 and L2
  l2_only,    // ld.global.cg: bypasses L1
  streaming,  // ld.global.cs: evict first, for data read once
  refetch,    // ld.global.cv: never served from a cache line fetched earlier
  volatile_,  // ld.volatile.global: never merged, hoisted or cached by the compiler
};
// ld.global.nc (the read-only path) is deliberately absent: it may return stale data
// for memory written while the kernel runs, which is what peer memory is.

// Cache behaviour of a store (PTX st.global.<cop>).
enum class StoreCache {
  normal,         // st.global (.wb): write back
  l2_only,        // st.global.cg: bypasses L1
  streaming,      // st.global.cs: evict first, for data written once
  write_through,  // st.global.wt: written through to memory (Iris's ".wt")
};

// Loads *address (any global address, e.g. a translated one) with cache behaviour C.
template <LoadCache C = LoadCache::normal, Movable T>
__device__ __forceinline__ T ld(const T* address) {
  using B = bits_t<T>;
  const B* raw = reinterpret_cast<const B*>(address);
  if constexpr (C == LoadCache::normal) {
    return *address;
  } else if constexpr (C == LoadCache::l2_only) {
    return from_bits<T>(__ldcg(raw));
  } else if constexpr (C == LoadCache::streaming) {
    return from_bits<T>(__ldcs(raw));
  } else if constexpr (C == LoadCache::refetch) {
    return from_bits<T>(__ldcv(raw));
  } else if constexpr (sizeof(T) == 16) {
    return from_bits<T>(ptx::ld_volatile_v4(raw));
  } else {
    return from_bits<T>(*reinterpret_cast<const volatile B*>(raw));
  }
}

// Stores value to *address (any global address) with cache behaviour C.
template <StoreCache C = StoreCache::normal, Movable T>
__device__ __forceinline__ void st(T* address, T value) {
  using B = bits_t<T>;
  B* raw = reinterpret_cast<B*>(address);
  if constexpr (C == StoreCache::normal) {
    *address = value;
  } else if constexpr (C == StoreCache::l2_only) {
    __stcg(raw, to_bits(value));
  } else if constexpr (C == StoreCache::streaming) {
    __stcs(raw, to_bits(value));
  } else {
    __stwt(raw, to_bits(value));
  }
}

// Rank `peer`'s copy of *local.
template <LoadCache C = LoadCache::normal, Movable T>
__device__ __forceinline__ T load(const Context& ctx, const T* local, int peer) {
  return ld<C>(ctx.translate(local, peer));
}

// Rank `peer`'s copy of *local where mask holds, `other` elsewhere (nothing is read).
template <LoadCache C = LoadCache::normal, Movable T>
__device__ __forceinline__ T load(const Context& ctx, const T* local, int peer, bool mask,
                                  std::type_identity_t<T> other = T{}) {
  return mask ? load<C>(ctx, local, peer) : other;
}

// Writes value to rank `peer`'s copy of *local where mask holds.
template <StoreCache C = StoreCache::normal, Movable T>
__device__ __forceinline__ void store(const Context& ctx, T* local, int peer,
                                      std::type_identity_t<T> value, bool mask = true) {
  if (mask) st<C>(ctx.translate(local, peer), value);
}

// *dst (this rank's memory) = rank `peer`'s copy of *src_local.
template <LoadCache LC = LoadCache::normal, StoreCache SC = StoreCache::normal, Movable T>
__device__ __forceinline__ void get(const Context& ctx, T* dst, const T* src_local, int peer,
                                   bool mask = true) {
  if (mask) st<SC>(dst, load<LC>(ctx, src_local, peer));
}

// Rank `peer`'s copy of *dst_local = *src (this rank's memory).
template <LoadCache LC = LoadCache::normal, StoreCache SC = StoreCache::normal, Movable T>
__device__ __forceinline__ void put(const Context& ctx, T* dst_local, const T* src, int peer,
                                    bool mask = true) {
  if (mask) st<SC>(ctx.translate(dst_local, peer), ld<LC>(src));
}

// Rank dst_rank's copy of *dst_local = rank src_rank's copy of *src_local (any two
// ranks, this one included).
template <LoadCache LC = LoadCache::normal, StoreCache SC = StoreCache::normal, Movable T>
__device__ __forceinline__ void copy(const Context& ctx, T* dst_local, int dst_rank,
                                     const T* src_local, int src_rank, bool mask = true) {
  if (mask) st<SC>(ctx.translate(dst_local, dst_rank), load<LC>(ctx, src_local, src_rank));
}

}  // namespace symm::device
