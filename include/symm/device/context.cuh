#pragma once
// The device view of the symmetric heap, passed by value to kernels.
//
// Every rank's heap is mapped into this process; bases[r] is where rank r's heap
// starts in *this* process's address space (a device-visible table owned by the host
// runtime). An allocation made by all ranks in the same order sits at the same offset
// in every heap, so a peer's copy of a local object is local - bases[rank] + bases[peer].
// Kernels never do that arithmetic themselves: they call translate().
#include <cstdint>
#include <type_traits>

namespace symm::device {

struct Context {
  int rank = 0;
  int world = 1;
  const std::uintptr_t* bases = nullptr;  // device pointer, world entries
  std::uint64_t heap_size = 0;

  // Address of `local` (an address in this rank's heap) in rank `peer`'s heap.
  template <class T>
  __device__ __forceinline__ T* translate(T* local, int peer) const {
    const auto offset = reinterpret_cast<std::uintptr_t>(local) - bases[rank];
    return reinterpret_cast<T*>(bases[peer] + offset);
  }

  __device__ __forceinline__ bool is_local(int peer) const { return peer == rank; }
};

static_assert(std::is_trivially_copyable_v<Context>);

}  // namespace symm::device
