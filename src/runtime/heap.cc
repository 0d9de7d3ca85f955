// The symmetric heap: transport choice, base table, collective symmetric allocation.
#include "symm/host/heap.hpp"

#include <fmt/format.h>

#include <bit>

#include "heap_mapping.hpp"
#include "symm/common/error.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/gather.hpp"
#include "symm/host/log.hpp"
#include "symm/host/settings.hpp"

namespace symm {
namespace {

// Every rank must ask for the same heap: offsets and Context::heap_size assume it.
void check_same_request(Team& team, std::size_t bytes) {
  const std::uint64_t mine = bytes;
  const std::vector<std::uint64_t> all = gather(team, mine);
  if (const int r = first_rank_unlike(all, mine); r >= 0)
    throw Error(fmt::format("symmetric heap: rank {} asked for {} bytes and rank {} for {}; "
                            "every rank must use the same --heap_size / SYMM_HEAP_SIZE",
                            team.rank(), mine, r, all[r]));
}

std::unique_ptr<HeapMapping> map_heap(Team& team, int device, std::size_t bytes,
                                      HeapTransport requested, HeapTransport& used) {
  check_same_request(team, bytes);
  if (requested != HeapTransport::ipc) {
    try {
      used = HeapTransport::vmm;
      return map_vmm_heap(team, device, bytes);
    } catch (const SetupStepFailed& e) {
      if (requested == HeapTransport::vmm) {
        throw Error(fmt::format("{}; the vmm heap transport was requested (SYMM_HEAP_TRANSPORT "
                                "or RuntimeOptions::transport): use auto or ipc where VMM "
                                "handles cannot be shared",
                                e.what()));
      }
      if (team.rank() == 0) {
        log::warn(fmt::format("symmetric heap: {}; falling back to legacy CUDA IPC", e.what()));
      }
    }
  }
  used = HeapTransport::ipc;
  return map_ipc_heap(team, device, bytes);
}

// Largest power of two dividing every base: the most an offset alignment can promise.
std::size_t common_alignment(std::span<const std::uintptr_t> bases) {
  std::uintptr_t bits = 0;
  for (std::uintptr_t base : bases) bits |= base;
  return bits == 0 ? std::size_t{1} << 63 : std::size_t{1} << std::countr_zero(bits);
}

}  // namespace

Heap::Heap(Team& team, int device, std::size_t bytes, HeapTransport transport)
    : team_(team),
      device_(device),
      transport_(transport),
      mapping_(map_heap(team, device, bytes, transport, transport_)),
      bases_(mapping_->bases().begin(), mapping_->bases().end()),
      base_alignment_(common_alignment(bases_)),
      allocator_(mapping_->size()),
      check_every_(settings::heap_check_every()),
      exceptions_at_start_(std::uncaught_exceptions()) {
  try {
    // Zeroed, so flags and counters placed on the heap start from a known state.
    SYMM_CUDA_CHECK(cudaMemset(base(), 0, size()));
    const std::size_t table_bytes = bases_.size() * sizeof(std::uintptr_t);
    SYMM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&device_bases_), table_bytes));
    SYMM_CUDA_CHECK(cudaMemcpy(device_bases_, bases_.data(), table_bytes, cudaMemcpyHostToDevice));
    SYMM_CUDA_CHECK(cudaDeviceSynchronize());
  } catch (...) {
    if (device_bases_ != nullptr) warn_on_cuda_error(cudaFree(device_bases_), "cudaFree(heap base table)");
    throw;
  }
  team_.barrier();  // no rank touches a peer's heap before it is zeroed
}

Heap::~Heap() {
  // Every stream may still be using the heap, and every peer may still be using ours.
  warn_on_cuda_error(cudaDeviceSynchronize(), "cudaDeviceSynchronize(heap teardown)");
  // Unwinding from an error: the peers are rarely at a barrier, and meeting them would hold
  // this rank's report back for the barrier's whole time limit (two minutes). The job is
  // ending; peers that still read this heap see their own errors.
  if (unwinding_since(exceptions_at_start_)) {
    log::warn("symmetric heap teardown while an error unwinds: not waiting for the other ranks");
  } else {
    try {
      team_.barrier();
    } catch (const std::exception& e) {
      try {  // a destructor must not throw
        log::warn(fmt::format("symmetric heap teardown: the ranks did not meet ({}); unmapping anyway",
                              e.what()));
      } catch (...) {
      }
    }
  }
  warn_on_cuda_error(cudaFree(device_bases_), "cudaFree(heap base table)");
}

void* Heap::allocate(std::size_t bytes, std::size_t alignment) {
  if (alignment > base_alignment_) {
    throw Error(fmt::format("{}symmetric heap: alignment {} exceeds the {} bytes that every "
                            "rank's heap base is aligned to",
                            rank_prefix(), alignment, base_alignment_));
  }
  std::size_t offset = 0;
  try {
    offset = allocator_.allocate(bytes, alignment);
  } catch (const Error& e) {
    throw Error(fmt::format("{}{}", rank_prefix(), e.what()));
  }
  if (check_every_ != 0 && allocator_.record().serial % check_every_ == 0) check_symmetry();
  return base() + offset;
}

void Heap::release_to(const HeapMark& mark) { allocator_.release_to(mark); }

void Heap::check_symmetry() {
  check_allocation_symmetry(gather(team_, allocator_.record()));
}

bool Heap::contains(const void* local, std::size_t bytes) const {
  const auto address = reinterpret_cast<std::uintptr_t>(local);
  if (address < bases_[rank()]) return false;
  const std::uint64_t offset = address - bases_[rank()];
  return offset < size() && bytes <= size() - offset;
}

void* Heap::translate_address(const void* local, int peer, std::size_t bytes) const {
  if (peer < 0 || peer >= world() || !contains(local, bytes)) {
    throw Error(fmt::format("{}Heap::translate({}, peer {}, {} bytes): {}", rank_prefix(), local, peer, bytes,
                            contains(local, bytes) ? "peer outside [0, world)"
                                                   : "range outside this rank's heap"));
  }
  const auto offset = reinterpret_cast<std::uintptr_t>(local) - bases_[rank()];
  return reinterpret_cast<void*>(bases_[peer] + offset);
}

HeapScope::~HeapScope() {
  try {
    heap_.release_to(mark_);
  } catch (const std::exception& e) {
    try {  // a destructor must not throw
      log::warn(fmt::format("HeapScope: {}", e.what()));
    } catch (...) {
    }
  }
}

}  // namespace symm
