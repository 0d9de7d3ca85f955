#pragma once
// Bounded waits for kernels that also issue wgmma. A printf anywhere in such a kernel
// makes ptxas serialise every wgmma, so these waits report a timeout through a record in
// host-mapped memory instead: the first thread to time out fills it, makes it visible to
// the host, and traps; the host reads it after the failed synchronisation
// (symm::ops::GemmAllScatter::failure_report) and prints rank, block, tile, flag, value
// seen and expected.
//
// A trap ends every block of the grid: when several waiters run out together, the first to
// trap would end the one still writing the record, and the host would find none. So only the
// thread that claims the record traps (once its stores have reached the host); every other
// waiter ends its own thread and leaves the grid's end to that trap. A sleep before the trap
// was no grace: __nanosleep may wake at once, and with every thread of a grid timing out the
// host found no whole record in most runs. The claim is a host-mapped atomic that crosses
// PCIe, so one lane per warp asks.
#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

#include "symm/common/wait_failure.hpp"
#include "symm/device/order.cuh"

namespace symm::device {

// Whether this thread claims the record whose `claimed` word this is (0: free, 1: being
// written, 2: written): only the lowest active lane of a warp tries.
__device__ __forceinline__ bool claim_record(unsigned int& claimed) {
  const unsigned leader = unsigned(__ffs(__activemask()) - 1);
  return cuda::ptx::get_sreg_laneid() == leader && atomicCAS(&claimed, 0u, 1u) == 0u;
}

// The claimant's last step: the fields it stored, then state 2, reach the host before it
// traps (a store still queued when the grid ends is lost).
__device__ __forceinline__ void publish_record(unsigned int& claimed) {
  __threadfence_system();
  cuda::atomic_ref<unsigned int, cuda::thread_scope_system>(claimed).store(2u, cuda::memory_order_release);
  __threadfence_system();
}

// A waiter that did not claim the record ends its thread (PTX exit). A claimant exists: a
// record stays free until a wait fails, and its claimant's trap ends the context, so no
// later launch finds it claimed.
__device__ __forceinline__ void leave_to_claimant() {
  asm volatile("exit;" ::: "memory");
  __builtin_unreachable();
}

__device__ __noinline__ inline void record_wait_failure(const symm::WaitSite& site, const void* flag,
                                                        int tile, std::uint64_t seen,
                                                        std::uint64_t expected,
                                                        std::uint64_t waited_ns) {
  symm::WaitFailureRecord* r = site.record;
  if (claim_record(r->claimed)) {
    r->rank = site.rank;
    r->block = int(blockIdx.x);
    r->tile = tile;
    r->flag_offset = flag == nullptr ? symm::WaitFailureRecord::kNoFlag
                                     : std::uint64_t(static_cast<const char*>(flag) -
                                                     static_cast<const char*>(site.heap_base));
    r->seen = seen;
    r->expected = expected;
    r->waited_ns = waited_ns;
    publish_record(r->claimed);
    __trap();
  }
  leave_to_claimant();
}

// Polls *flag (relaxed, at Scope) until it reaches `expected`, then one acquire fence at
// Scope. The clock is read every 64 polls and not at all when the flag is already set.
template <cuda::thread_scope Scope>
__device__ __forceinline__ void wait_at_least_recorded(const symm::WaitSite& site, const std::uint64_t* flag,
                                                       std::uint64_t expected, int tile) {
  cuda::atomic_ref<std::uint64_t, Scope> ref(*const_cast<std::uint64_t*>(flag));
  std::uint64_t seen = ref.load(cuda::memory_order_relaxed);
  if (seen < expected) {
    const std::uint64_t start = cuda::ptx::get_sreg_globaltimer();
    for (unsigned polls = 1; (seen = ref.load(cuda::memory_order_relaxed)) < expected; ++polls) {
      if (polls % 64 == 0) {
        const std::uint64_t waited = cuda::ptx::get_sreg_globaltimer() - start;
        if (waited > site.budget_ns) record_wait_failure(site, flag, tile, seen, expected, waited);
      }
    }
  }
  fence<cuda::memory_order_acquire, Scope>();
}

}  // namespace symm::device
