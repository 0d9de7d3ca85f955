#pragma once
// The device side of a GEMM wait that ran out of budget (wait_record.hpp): the first
// waiter to time out fills the record, makes it visible to the host, and every waiter
// that times out traps, ending the grid.
#include <cuda/atomic>

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
  __trap();
}

}  // namespace symm::gemm
