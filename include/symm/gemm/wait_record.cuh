#pragma once
// The device side of a GEMM wait that ran out of budget (wait_record.hpp): the first
// waiter to time out fills the record, makes it visible to the host, and every waiter
// that times out traps, ending the grid (once the record is written).
#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

#include "symm/device/wait_record.cuh"
#include "symm/gemm/wait_record.hpp"

namespace symm::gemm {

// Out of line: the waits stay small in the kernels' hot loops.
__device__ __noinline__ inline void wait_failed(GemmWaitRecord* r, GemmWaitSite site, int stage, int tile,
                                                int seen, int expected, std::uint64_t waited_ns) {
  if (r != nullptr && atomicCAS(&r->claimed, 0u, 1u) == 0u) {
    r->site = int(site);
    r->block = int(blockIdx.x);
    r->stage = stage;
    r->tile = tile;
    r->seen = seen;
    r->expected = expected;
    r->waited_ns = waited_ns;
    __threadfence_system();
    cuda::atomic_ref<unsigned int, cuda::thread_scope_system>(r->claimed).store(2u, cuda::memory_order_release);
  }
  // The trap ends every block of the grid: when many waiters run out together (every
  // producer behind a consumer that never releases), the first to trap would end the one
  // still writing the record, and the host would find none. Trap once it is written, or
  // after the grace. (Each branch ends in its own trap: with one trap after both, ptxas
  // failed to fit the consumers in their 232 registers, C7600.)
  if (r != nullptr) {
    symm::device::await_record_written(r->claimed);
    __trap();
  }
  __trap();
}

}  // namespace symm::gemm
