#pragma once
// The record a timed-out device wait leaves in host-mapped memory (device/wait_record.cuh
// writes it; the host reads it after the kernel trapped): shared by host and device.
#include <cstdint>

namespace symm {

struct WaitFailureRecord {
  // flag_offset of a wait for this block's own TMA copies through shared memory (the push
  // role's slots, kernels/ops/gemm_all_scatter/push_tiles.cuh), not for a flag.
  static constexpr std::uint64_t kNoFlag = ~std::uint64_t(0);
  unsigned int claimed;       // 0: free, 1: being written, 2: complete
  int rank;
  int block;
  int tile;                   // the tile the waiter was waiting for
  std::uint64_t flag_offset;  // byte offset of the flag in the heap
  std::uint64_t seen;
  std::uint64_t expected;     // the wait was for flag >= expected
  std::uint64_t waited_ns;
};

// Where a recorded wait writes, and what it says about itself.
struct WaitSite {
  WaitFailureRecord* record = nullptr;  // device view of host-mapped memory
  const void* heap_base = nullptr;      // this rank's heap, for the flag's offset
  std::uint64_t budget_ns = 0;          // SYMM_WAIT_TIMEOUT_MS
  int rank = 0;
};

}  // namespace symm
