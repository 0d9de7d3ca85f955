// Bookkeeping of the symmetric heap: a bump allocator with stack-order release.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>

#include "bytes.hpp"
#include "symm/common/error.hpp"
#include "symm/host/heap.hpp"

namespace symm {
namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  // splitmix64 finaliser of (h ^ v): every input bit affects every output bit.
  std::uint64_t z = (h ^ v) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

constexpr std::uint64_t kAllocateTag = 1, kReleaseTag = 2;

}  // namespace

HeapAllocator::HeapAllocator(std::size_t capacity) : capacity_(capacity) {}

std::size_t HeapAllocator::used() const {
  return live_.empty() ? 0 : live_.back().offset + live_.back().bytes;
}

std::size_t HeapAllocator::allocate(std::size_t bytes, std::size_t alignment) {
  if (!std::has_single_bit(alignment)) {
    throw Error(fmt::format("symmetric heap: alignment {} is not a power of two", alignment));
  }
  const std::size_t end = used();
  const std::size_t padding = (alignment - (end & (alignment - 1))) & (alignment - 1);
  const bool aligned_fits = padding <= capacity_ - end;  // no overflow: end <= capacity_
  const std::size_t offset = aligned_fits ? end + padding : capacity_;
  if (!aligned_fits || bytes > capacity_ - offset) {
    const std::size_t needed = bytes > SIZE_MAX - offset ? SIZE_MAX : offset + bytes;
    throw Error(fmt::format(
        "symmetric heap exhausted: requested {} (alignment {}) but only {} of the heap_size "
        "{} are free ({} live allocations). Raise the heap with --heap_size or "
        "SYMM_HEAP_SIZE (e.g. SYMM_HEAP_SIZE={}), or release allocations sooner "
        "(symm::HeapScope, Heap::release_to).",
        describe_bytes(bytes), alignment, describe_bytes(capacity_ - end),
        describe_bytes(capacity_), live_.size(), suggest_size(needed)));
  }
  const std::uint64_t serial = record_.serial + 1;
  live_.push_back({serial, offset, bytes});
  peak_ = std::max(peak_, offset + bytes);
  record_.serial = serial;
  record_.offset = offset;
  record_.bytes = bytes;
  note(kAllocateTag, offset, bytes);
  return offset;
}

HeapMark HeapAllocator::mark() const {
  return {live_.size(), live_.empty() ? 0 : live_.back().serial};
}

void HeapAllocator::release_to(const HeapMark& mark) {
  // A mark stays valid while the allocation it names is alive; once released past, its
  // slot may hold a newer allocation, which the serial number tells apart.
  const bool alive = mark.live_count <= live_.size() &&
                     (mark.live_count == 0 || live_[mark.live_count - 1].serial == mark.last_serial);
  if (!alive) {
    throw Error(fmt::format(
        "symmetric heap: release_to() with a stale mark (taken after {} allocations, the "
        "newest #{}); marks must be released in stack order, newest first",
        mark.live_count, mark.last_serial));
  }
  live_.resize(mark.live_count);
  note(kReleaseTag, mark.live_count, mark.last_serial);
}

void HeapAllocator::note(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  record_.digest = mix(mix(mix(record_.digest, a), b), c);
}

void check_allocation_symmetry(std::span<const AllocationRecord> per_rank) {
  if (per_rank.empty()) return;
  const AllocationRecord& first = per_rank[0];
  for (std::size_t r = 1; r < per_rank.size(); ++r) {
    const AllocationRecord& other = per_rank[r];
    if (other.serial == first.serial && other.offset == first.offset &&
        other.bytes == first.bytes && other.digest == first.digest) {
      continue;
    }
    throw Error(fmt::format(
        "symmetric heap diverged: rank 0 made {} allocations (newest: {} bytes at offset {}) "
        "but rank {} made {} (newest: {} bytes at offset {}){}. Every rank must allocate the "
        "same sizes and release to the same marks in the same order.",
        first.serial, first.bytes, first.offset, r, other.serial, other.bytes, other.offset,
        other.digest == first.digest ? "" : ", and their histories differ"));
  }
}

}  // namespace symm
