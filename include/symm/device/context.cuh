#pragma once
// The device view of the symmetric heap, passed by value to kernels.
//
// Every rank's heap is mapped into this process; bases[r] is where rank r's heap
// starts in *this* process's address space (a device-visible table owned by the host
// runtime). An allocation made by all ranks in the same order sits at the same offset
// in every heap, so a peer's copy of a local object is local - bases[rank] + bases[peer].
// Kernels never do that arithmetic themselves: they call translate().
//
// The runtime fills every field; wait_timeout_ns comes from SYMM_WAIT_TIMEOUT_MS and
// bounds every spin in signal.cuh and barrier.cuh (docs/memory-model.md).
#include <cstdint>
#include <type_traits>

#include "symm/device/check.cuh"

namespace symm::device {

// Used when SYMM_WAIT_TIMEOUT_MS is not set: long enough for ranks that take turns on
// one GPU, short enough that a lost signal is reported while someone is still watching.
inline constexpr std::uint64_t kDefaultWaitTimeoutMs = 10'000;

// Bytes one T takes (1 for void): how far a translated access reaches by default.
template <class T>
constexpr std::uint64_t bytes_of() {
  if constexpr (std::is_void_v<T>)
    return 1;
  else
    return sizeof(T);
}

struct Context {
  int rank = 0;
  int world = 1;
  const std::uintptr_t* bases = nullptr;  // device pointer, world entries
  std::uint64_t heap_size = 0;
  std::uint64_t wait_timeout_ns = kDefaultWaitTimeoutMs * 1'000'000;

  // Address of `local` (an address in this rank's heap) in rank `peer`'s heap; `bytes`:
  // how far the access reaches from it (one T unless a range or tile follows). Debug
  // builds trap on a peer outside [0, world) or bytes that do not all lie in the heap
  // (the ranks' heaps may be mapped side by side: an overrun would write the next one).
  template <class T>
  __device__ __forceinline__ T* translate(T* local, int peer, std::uint64_t bytes = bytes_of<T>()) const {
    if constexpr (kDebugChecks) check_translation(local, peer, bytes);
    const auto offset = reinterpret_cast<std::uintptr_t>(local) - bases[rank];
    return reinterpret_cast<T*>(bases[peer] + offset);
  }

  __device__ __forceinline__ bool is_local(int peer) const { return peer == rank; }

  // True when [address, address + bytes) lies in this rank's own heap.
  __device__ __forceinline__ bool in_local_heap(const void* address,
                                                std::uint64_t bytes = 1) const {
    const auto offset = reinterpret_cast<std::uintptr_t>(address) - bases[rank];
    return offset < heap_size && bytes <= heap_size - offset;  // unsigned: below base wraps
  }

 private:
  __device__ void check_translation(const volatile void* local, int peer, std::uint64_t bytes) const {
    if (peer < 0 || peer >= world) {
      SYMM_DEVICE_FAIL(rank, "translate(%p, peer %d): peer outside [0, %d)", local, peer,
                       world);
    }
    if (!in_local_heap(const_cast<const void*>(local), bytes)) {
      SYMM_DEVICE_FAIL(rank,
                       "translate(%p, %llu bytes, peer %d): address outside this rank's heap "
                       "[%p, +%llu bytes)",
                       local, static_cast<unsigned long long>(bytes), peer,
                       reinterpret_cast<const void*>(bases[rank]),
                       static_cast<unsigned long long>(heap_size));
    }
  }
};

static_assert(std::is_trivially_copyable_v<Context>);

}  // namespace symm::device
