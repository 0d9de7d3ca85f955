#pragma once
// Bounded waits for kernels that also issue wgmma. A printf anywhere in such a kernel
// makes ptxas serialise every wgmma, so these waits report a timeout through a record in
// host-mapped memory instead: the first thread to time out fills it, makes it visible to
// the host, and traps; the host reads it after the failed synchronisation
// (symm::ops::GemmAllScatter::failure_report) and prints rank, block, tile, flag, value
// seen and expected.
//
// A trap ends every block of the grid: when several waiters run out together, the first to
// trap would end the one still writing the record, and the host would find none. So a
// waiter that did not claim the record traps once it is written, or after a grace.
#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

#include "symm/common/wait_failure.hpp"
#include "symm/device/order.cuh"

namespace symm::device {

// How long a waiter that did not claim a failure record gives the one that did to finish
// it (a few stores): one sleep, not a polling loop, since with any loop here ptxas could
// not fit the fused kernel in its 232 registers (C7600).
inline constexpr unsigned kRecordGraceNs = 1'000'000;  // __nanosleep's longest

// Returns at once if the record whose `claimed` word this is is not being written (state
// 1), else after about kRecordGraceNs.
__device__ __forceinline__ void await_record_written(unsigned int& claimed) {
  if (cuda::atomic_ref<unsigned int, cuda::thread_scope_system>(claimed).load(cuda::memory_order_relaxed) == 1u)
    __nanosleep(kRecordGraceNs);
}

__device__ __noinline__ inline void record_wait_failure(const symm::WaitSite& site, const void* flag,
                                                        int tile, std::uint64_t seen,
                                                        std::uint64_t expected,
                                                        std::uint64_t waited_ns) {
  symm::WaitFailureRecord* r = site.record;
  if (atomicCAS(&r->claimed, 0u, 1u) == 0u) {
    r->rank = site.rank;
    r->block = int(blockIdx.x);
    r->tile = tile;
    r->flag_offset = flag == nullptr ? symm::WaitFailureRecord::kNoFlag
                                     : std::uint64_t(static_cast<const char*>(flag) -
                                                     static_cast<const char*>(site.heap_base));
    r->seen = seen;
    r->expected = expected;
    r->waited_ns = waited_ns;
    __threadfence_system();
    cuda::atomic_ref<unsigned int, cuda::thread_scope_system>(r->claimed)
        .store(2u, cuda::memory_order_release);  // 2: every field written
    __trap();
  }
  await_record_written(r->claimed);
  __trap();
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
