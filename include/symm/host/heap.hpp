#pragma once
// The symmetric heap (docs/memory-model.md).
//
// Every rank owns `size()` bytes of device memory, and every rank's heap is mapped into
// every process: bases()[r] is where rank r's heap starts here. Allocation is collective
// and symmetric: all ranks allocate the same sizes in the same order, so an object sits
// at the same offset in every heap and a peer's copy of a local object is
// local - bases()[rank()] + bases()[peer]. Allocations are released in stack order
// (mark / release_to, or a HeapScope), so a sweep can reuse the heap indefinitely.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "symm/common/error.hpp"
#include "symm/common/tensor.hpp"
#include "symm/host/heap_transport.hpp"
#include "symm/host/team.hpp"

namespace symm {

inline constexpr std::size_t kDefaultHeapAlignment = 256;

// A position in the allocation stack: release_to(mark) frees what was allocated after it.
struct HeapMark {
  std::uint64_t live_count = 0;   // allocations alive when the mark was taken
  std::uint64_t last_serial = 0;  // serial number of the newest of them (0: none)
};

// One rank's allocation history in a few words, compared across ranks to prove that
// the heaps stayed symmetric.
struct AllocationRecord {
  std::uint64_t serial = 0;  // allocations made so far
  std::uint64_t offset = 0;  // of the newest allocation
  std::uint64_t bytes = 0;   // of the newest allocation
  std::uint64_t digest = 0;  // hash of every allocation and release so far
};

// The bookkeeping of the heap, without CUDA: a bump allocator with stack-order release.
// Offsets are relative to the start of the heap.
class HeapAllocator {
 public:
  explicit HeapAllocator(std::size_t capacity);

  // Offset of `bytes` bytes aligned to `alignment` (a power of two). Throws symm::Error
  // naming the bytes requested and free, the heap size and the knob that raises it.
  std::size_t allocate(std::size_t bytes, std::size_t alignment = kDefaultHeapAlignment);

  HeapMark mark() const;
  // Frees every allocation made after `mark`; a mark already released past is an error.
  void release_to(const HeapMark& mark);

  std::size_t capacity() const { return capacity_; }
  std::size_t used() const;  // end of the newest live allocation
  std::size_t available() const { return capacity_ - used(); }
  std::size_t peak() const { return peak_; }  // highest used() so far
  std::size_t live_allocations() const { return live_.size(); }
  AllocationRecord record() const { return record_; }

 private:
  struct Block {
    std::uint64_t serial;
    std::size_t offset;
    std::size_t bytes;
  };
  void note(std::uint64_t a, std::uint64_t b, std::uint64_t c);

  std::size_t capacity_;
  std::vector<Block> live_;
  std::size_t peak_ = 0;
  AllocationRecord record_;
};

// Throws symm::Error naming the first rank whose record differs from rank 0's.
void check_allocation_symmetry(std::span<const AllocationRecord> per_rank);

class HeapMapping;  // the transport-specific mapping (src/runtime)

class Heap {
 public:
  // Collective: every rank of `team` constructs its heap on `device` together.
  Heap(Team& team, int device, std::size_t bytes, HeapTransport transport);
  // Collective: waits for the device and every rank, then unmaps.
  ~Heap();
  Heap(const Heap&) = delete;
  Heap& operator=(const Heap&) = delete;

  int rank() const { return team_.rank(); }
  int world() const { return team_.world(); }
  int device() const { return device_; }
  std::size_t size() const { return allocator_.capacity(); }  // per rank
  HeapTransport transport() const { return transport_; }       // vmm or ipc, as used
  std::byte* base() const { return reinterpret_cast<std::byte*>(bases_[rank()]); }
  std::span<const std::uintptr_t> bases() const { return bases_; }
  const std::uintptr_t* device_bases() const { return device_bases_; }
  const HeapAllocator& allocator() const { return allocator_; }

  // Collective and symmetric. Checks symmetry across ranks every
  // SYMM_HEAP_CHECK_EVERY allocations (default 1; 0 disables).
  void* allocate(std::size_t bytes, std::size_t alignment = kDefaultHeapAlignment);

  // Uninitialised, contiguous; the factories of symm/host/tensor.hpp fill it.
  template <Element T>
  Tensor<T> allocate_tensor(const Shape& shape, std::size_t alignment = kDefaultHeapAlignment) {
    const auto elements = static_cast<std::size_t>(shape.numel());
    if (elements > SIZE_MAX / sizeof(T))
      throw Error("symmetric heap: a tensor of " + std::to_string(elements) + " elements of " +
                  std::to_string(sizeof(T)) + " bytes exceeds the address space");
    const std::size_t bytes = elements * sizeof(T);
    return Tensor<T>::contiguous(static_cast<T*>(allocate(bytes, alignment)), shape);
  }

  HeapMark mark() const { return allocator_.mark(); }
  // Every rank releases to the same mark; no rank may still use what is released.
  void release_to(const HeapMark& mark);

  // Whether all `bytes` from local lie on this rank's heap (not only the first: a range
  // running past the heap's end would reach past a peer's).
  bool contains(const void* local, std::size_t bytes = 1) const;
  // Host-side address translation of `bytes` from local, as device::Context::translate
  // does on the device; throws where they do not all lie on the heap.
  template <class T>
  T* translate(T* local, int peer, std::size_t bytes = 1) const {
    return reinterpret_cast<T*>(translate_address(local, peer, bytes));
  }

 private:
  void* translate_address(const void* local, int peer, std::size_t bytes) const;
  void check_symmetry();

  Team& team_;
  int device_;
  HeapTransport transport_;
  std::unique_ptr<HeapMapping> mapping_;
  std::vector<std::uintptr_t> bases_;
  std::uintptr_t* device_bases_ = nullptr;
  std::size_t base_alignment_ = 0;  // largest power of two dividing every base
  HeapAllocator allocator_;
  std::uint64_t check_every_;
  int exceptions_at_start_;  // std::uncaught_exceptions() when constructed
};

// Releases, on leaving the scope, everything allocated on `heap` inside it.
class HeapScope {
 public:
  explicit HeapScope(Heap& heap) : heap_(heap), mark_(heap.mark()) {}
  ~HeapScope();
  HeapScope(const HeapScope&) = delete;
  HeapScope& operator=(const HeapScope&) = delete;

 private:
  Heap& heap_;
  HeapMark mark_;
};

}  // namespace symm
