#pragma once
// What a GEMM kernel leaves in host-mapped memory when one of its bounded waits outlasts
// SYMM_WAIT_TIMEOUT_MS, before it traps (a printf in the kernel would serialise its
// wgmmas): Gemm::failure_report() reads it after the failed synchronisation. Shared by
// host and device; the device side is wait_record.cuh.
#include <cstdint>
#include <string>

namespace symm::gemm {

enum class GemmWaitSite : int {
  stage_release = 1,  // the producer waited for the consumers to hand a ring stage back
  partial_sums = 2,   // a split-K or stream-K unit waited for the partial sums of its tile
};

struct GemmWaitRecord {
  unsigned int claimed;  // 0: free, 1: being written, 2: complete
  int site;              // GemmWaitSite
  int block;             // blockIdx.x of the waiter
  int stage;             // stage_release: the ring stage; else -1
  int tile;              // partial_sums: the tile (grouped order); else -1
  int seen, expected;    // partial_sums: arrivals counted and needed; else -1
  std::uint64_t waited_ns;
};

// One line saying which wait timed out and what it waited for; empty while the record
// is not complete (no wait timed out).
std::string describe(const GemmWaitRecord& r);

// The record the device wrote into host-mapped memory at `mapped`, read once, whole.
GemmWaitRecord read_wait_record(const void* mapped);

}  // namespace symm::gemm
