// The symmetric heap's bookkeeping: alignment, order, stack release, overflow message,
// symmetry check.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symm/common/error.hpp"
#include "symm/host/heap.hpp"

namespace symm {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

std::string message_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a symm::Error";
  return {};
}

TEST(HeapAllocator, AlignsEveryAllocationToTheRequestedPowerOfTwo) {
  HeapAllocator heap(kMiB);
  const std::size_t a = heap.allocate(1);        // default alignment
  const std::size_t b = heap.allocate(3);        // follows a, rounded up to 256
  const std::size_t c = heap.allocate(10, 4096);
  const std::size_t d = heap.allocate(7, 1);     // byte alignment packs right after c
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, kDefaultHeapAlignment);
  EXPECT_EQ(c % 4096, 0u);
  EXPECT_GE(c, b + 3);
  EXPECT_LT(c, b + 3 + 4096);
  EXPECT_EQ(d, c + 10);
  EXPECT_EQ(heap.used(), d + 7);
}

TEST(HeapAllocator, RejectsAlignmentsThatAreNotPowersOfTwo) {
  HeapAllocator heap(kMiB);
  for (std::size_t alignment : {std::size_t{0}, std::size_t{3}, std::size_t{384}}) {
    EXPECT_NE(message_of([&] { heap.allocate(8, alignment); }).find("not a power of two"),
              std::string::npos)
        << "alignment " << alignment;
  }
  EXPECT_EQ(heap.live_allocations(), 0u);
}

TEST(HeapAllocator, AllocationsAreDisjointAndInIncreasingOrder) {
  HeapAllocator heap(kMiB);
  std::size_t previous_end = 0;
  for (std::size_t bytes : {100u, 1u, 4096u, 255u, 256u, 257u}) {
    const std::size_t offset = heap.allocate(bytes);
    EXPECT_GE(offset, previous_end);
    EXPECT_EQ(offset % kDefaultHeapAlignment, 0u);
    previous_end = offset + bytes;
  }
  EXPECT_EQ(heap.live_allocations(), 6u);
  EXPECT_EQ(heap.used(), previous_end);
  EXPECT_EQ(heap.available(), kMiB - previous_end);
}

TEST(HeapAllocator, ReleaseToMarkFreesEverythingAfterItAndOffsetsRepeat) {
  HeapAllocator heap(kMiB);
  heap.allocate(1000);
  const HeapMark mark = heap.mark();
  const std::size_t used_at_mark = heap.used();
  const std::size_t first = heap.allocate(5000);
  const std::size_t second = heap.allocate(7000);
  heap.release_to(mark);
  EXPECT_EQ(heap.used(), used_at_mark);
  EXPECT_EQ(heap.live_allocations(), 1u);
  // The same sequence lands at the same offsets again: a sweep reuses the heap.
  EXPECT_EQ(heap.allocate(5000), first);
  EXPECT_EQ(heap.allocate(7000), second);
  EXPECT_EQ(heap.peak(), second + 7000);
}

TEST(HeapAllocator, NestedMarksReleaseInStackOrder) {
  HeapAllocator heap(kMiB);
  const HeapMark outer = heap.mark();
  heap.allocate(10);
  const HeapMark inner = heap.mark();
  heap.allocate(20);
  heap.release_to(inner);
  EXPECT_EQ(heap.live_allocations(), 1u);
  heap.release_to(outer);
  EXPECT_EQ(heap.live_allocations(), 0u);
  EXPECT_EQ(heap.used(), 0u);
}

TEST(HeapAllocator, AStaleMarkIsRefused) {
  HeapAllocator heap(kMiB);
  heap.allocate(10);
  const HeapMark outer = heap.mark();
  heap.allocate(20);
  const HeapMark inner = heap.mark();
  heap.release_to(outer);
  heap.allocate(30);  // takes the slot `inner` named, as a different allocation
  const std::string message = message_of([&] { heap.release_to(inner); });
  EXPECT_NE(message.find("stale mark"), std::string::npos) << message;
  EXPECT_EQ(heap.live_allocations(), 2u);  // nothing was released
}

TEST(HeapAllocator, OverflowMessageNamesRequestAvailableHeapSizeAndKnob) {
  HeapAllocator heap(std::size_t{3} << 30);
  heap.allocate(std::size_t{2} << 30);
  const std::size_t request = (std::size_t{3} << 29) + 12345;  // 1.5 GiB + change
  const std::string message = message_of([&] { heap.allocate(request); });
  EXPECT_NE(message.find(std::to_string(request) + " bytes"), std::string::npos) << message;
  EXPECT_NE(message.find(std::to_string(std::size_t{1} << 30) + " bytes"), std::string::npos)
      << "bytes available: " << message;
  EXPECT_NE(message.find(std::to_string(std::size_t{3} << 30) + " bytes"), std::string::npos)
      << "heap size: " << message;
  EXPECT_NE(message.find("--heap_size"), std::string::npos) << message;
  EXPECT_NE(message.find("SYMM_HEAP_SIZE=4GiB"), std::string::npos)
      << "a heap that fits 2 GiB + 1.5 GiB: " << message;
  EXPECT_EQ(heap.live_allocations(), 1u);
}

TEST(HeapAllocator, ExactFitSucceedsAndOneByteMoreFails) {
  HeapAllocator heap(4096);
  heap.allocate(1000);
  const std::size_t rest = 4096 - 1024;  // after rounding 1000 up to 256
  EXPECT_THROW(heap.allocate(rest + 1), Error);
  EXPECT_EQ(heap.allocate(rest), 1024u);
  EXPECT_EQ(heap.available(), 0u);
  EXPECT_THROW(heap.allocate(1), Error);
  EXPECT_EQ(heap.allocate(0), 4096u);  // an empty tensor still gets a (one-past-end) place
}

TEST(HeapAllocator, HugeRequestsAndAlignmentsDoNotWrapAround) {
  HeapAllocator heap(kMiB);
  heap.allocate(1);
  EXPECT_THROW(heap.allocate(SIZE_MAX), Error);
  EXPECT_THROW(heap.allocate(1, std::size_t{1} << 63), Error);
}

TEST(AllocationSymmetry, IdenticalHistoriesPass) {
  HeapAllocator a(kMiB), b(kMiB);
  for (HeapAllocator* heap : {&a, &b}) {
    heap->allocate(100);
    const HeapMark mark = heap->mark();
    heap->allocate(300, 1024);
    heap->release_to(mark);
    heap->allocate(50);
  }
  const std::vector<AllocationRecord> records = {a.record(), b.record()};
  EXPECT_NO_THROW(check_allocation_symmetry(records));
}

TEST(AllocationSymmetry, DivergenceNamesTheRankAndBothAllocations) {
  HeapAllocator a(kMiB), b(kMiB), c(kMiB);
  a.allocate(100);
  b.allocate(100);
  c.allocate(200);  // rank 2 asked for a different size
  const std::vector<AllocationRecord> records = {a.record(), b.record(), c.record()};
  const std::string message = message_of([&] { check_allocation_symmetry(records); });
  EXPECT_NE(message.find("rank 2"), std::string::npos) << message;
  EXPECT_NE(message.find("100 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("200 bytes"), std::string::npos) << message;
}

TEST(AllocationSymmetry, ADifferentReleaseHistoryIsCaughtEvenWhenTheNewestMatches) {
  HeapAllocator a(kMiB), b(kMiB);
  a.allocate(100);
  b.allocate(100);
  const HeapMark mark_a = a.mark(), mark_b = b.mark();
  a.allocate(64);
  b.allocate(64);
  a.release_to(mark_a);  // rank 0 released, rank 1 did not ...
  b.release_to(mark_b);
  b.release_to(mark_b);  // ... twice: same offsets from here on, different history
  a.allocate(10);
  b.allocate(10);
  ASSERT_EQ(a.record().offset, b.record().offset);
  const std::vector<AllocationRecord> records = {a.record(), b.record()};
  EXPECT_NE(message_of([&] { check_allocation_symmetry(records); }).find("histories differ"),
            std::string::npos);
}

}  // namespace
}  // namespace symm
