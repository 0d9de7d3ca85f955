#pragma once
// The device side of a GEMM wait that ran out of budget (wait_record.hpp): the first
// waiter to time out fills the record, makes it visible to the host, and traps, ending the
// grid; every other waiter that times out ends its own thread first.
#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

#include "symm/device/wait_record.cuh"
#include "symm/gemm/wait_record.hpp"

namespace symm::gemm {

// Out of line: the waits stay small in the kernels' hot loops.
__device__ __noinline__ inline void wait_failed(GemmWaitRecord* r, GemmWaitSite site, int stage, int tile,
                                                int seen, int expected, std::uint64_t waited_ns) {
  if (r != nullptr && symm::device::claim_record(r->claimed)) {
    r->site = int(site);
    r->block = int(blockIdx.x);
    r->stage = stage;
    r->tile = tile;
    r->seen = seen;
    r->expected = expected;
    r->waited_ns = waited_ns;
    symm::device::publish_record(r->claimed);
    __trap();
  }
  // The trap ends every block of the grid: when many waiters run out together (every
  // producer behind a consumer that never releases), the first to trap would end the one
  // still writing the record, and the host would find none. The others leave the grid's
  // end to the claimant's trap. (Each branch ends on its own: with one trap after both,
  // ptxas failed to fit the consumers in their 232 registers, C7600.)
  if (r != nullptr) symm::device::leave_to_claimant();
  __trap();
}

}  // namespace symm::gemm
