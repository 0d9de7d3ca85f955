#pragma once
// Flags: one thread raises a flag on any rank with release; another waits for it with
// acquire, for a bounded time.
//
// Flags carry epochs: a flag holds a 64-bit count (a launch number, a message sequence
// number) that only grows, so nothing is zeroed between iterations and a flag left from
// an earlier round never passes for a fresh one. Wait with wait_at_least(expected
// epoch); wait_equal also catches a skipped epoch.
//
// Producer (after every writer of the data met it at a block barrier):
//   signal_set(ctx, &flags[tile], consumer, epoch);       // st.release.sys
// Consumer:
//   if (threadIdx.x == 0) wait_at_least(ctx, &flags[tile], epoch);  // polls, then acquires
//   __syncthreads();                                                // then reads the data
//
// Every wait has a budget (ctx.wait_timeout_ns, from SYMM_WAIT_TIMEOUT_MS). When it
// runs out the waiting thread prints rank, block, thread, flag address (and its offset
// in the heap), the value seen and the value expected, then traps: the host sees a
// failed kernel, never a hang.
#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

#include "symm/device/atomic.cuh"
#include "symm/device/context.cuh"
#include "symm/device/order.cuh"
#include "symm/device/ptx/red.cuh"

namespace symm::device {

using flag_t = std::uint64_t;

// Sets rank `peer`'s copy of *flag_local to value (st.release.sys by default).
template <cuda::memory_order Order = cuda::memory_order_release,
          cuda::thread_scope Scope = cuda::thread_scope_system>
__device__ __forceinline__ void signal_set(const Context& ctx, flag_t* flag_local, int peer,
                                           flag_t value) {
  atomic_store<Order, Scope>(ctx, flag_local, peer, value);
}

// Adds value to rank `peer`'s copy of *flag_local without waiting for the old value
// (red.release.sys.add.u64 by default): many producers may count into one flag.
template <cuda::memory_order Order = cuda::memory_order_release,
          cuda::thread_scope Scope = cuda::thread_scope_system>
__device__ __forceinline__ void signal_add(const Context& ctx, flag_t* flag_local, int peer,
                                           flag_t value) {
  static_check_order_scope<Order, Scope, Access::store>();
  check_peer_scope<Scope>(ctx, peer, "signal_add");
  ptx::red_add_u64<Order, Scope>(ctx.translate(flag_local, peer), value);
}

namespace detail {

__device__ __noinline__ inline void report_wait_timeout(const Context& ctx, const flag_t* flag,
                                                        flag_t seen, const char* relation,
                                                        flag_t expected,
                                                        std::uint64_t waited_ns) {
  const long long heap_offset =
      ctx.in_local_heap(flag)
          ? static_cast<long long>(reinterpret_cast<std::uintptr_t>(flag) - ctx.bases[ctx.rank])
          : -1;
  SYMM_DEVICE_FAIL(ctx.rank,
                   "wait timed out after %llu ms (SYMM_WAIT_TIMEOUT_MS) on flag %p "
                   "(heap offset %lld, -1: not in this rank's heap): saw %llu, expected %s "
                   "%llu",
                   static_cast<unsigned long long>(waited_ns / 1'000'000), flag, heap_offset,
                   static_cast<unsigned long long>(seen), relation,
                   static_cast<unsigned long long>(expected));
}

// Polls *flag (relaxed, at Scope) until done(value) holds, then applies Order with one
// fence. The clock is read only every 64 polls, and not at all when the flag is
// already set.
template <cuda::memory_order Order, cuda::thread_scope Scope, class Done>
__device__ __forceinline__ flag_t wait_until(const Context& ctx, const flag_t* flag, Done done,
                                             const char* relation, flag_t expected) {
  static_check_order_scope<Order, Scope, Access::load>();
  cuda::atomic_ref<flag_t, Scope> ref(*const_cast<flag_t*>(flag));
  flag_t seen = ref.load(cuda::memory_order_relaxed);
  if (!done(seen)) {
    const std::uint64_t start = cuda::ptx::get_sreg_globaltimer();
    for (unsigned polls = 1; !done(seen = ref.load(cuda::memory_order_relaxed)); ++polls) {
      if (polls % 64 == 0) {
        const std::uint64_t waited = cuda::ptx::get_sreg_globaltimer() - start;
        if (waited > ctx.wait_timeout_ns) {
          report_wait_timeout(ctx, flag, seen, relation, expected, waited);
        }
      }
    }
  }
  fence<Order, Scope>();
  return seen;
}

}  // namespace detail

// Waits until *flag >= expected (an epoch reached); returns the value seen. `flag` is
// an address in this process (a local flag, or ctx.translate(flag, peer) to watch a
// peer's; polling over NVLink is slower).
template <cuda::memory_order Order = cuda::memory_order_acquire,
          cuda::thread_scope Scope = cuda::thread_scope_system>
__device__ __forceinline__ flag_t wait_at_least(const Context& ctx, const flag_t* flag,
                                                flag_t expected) {
  return detail::wait_until<Order, Scope>(
      ctx, flag, [expected](flag_t v) { return v >= expected; }, ">=", expected);
}

// Waits until *flag == expected; returns the value seen.
template <cuda::memory_order Order = cuda::memory_order_acquire,
          cuda::thread_scope Scope = cuda::thread_scope_system>
__device__ __forceinline__ flag_t wait_equal(const Context& ctx, const flag_t* flag,
                                             flag_t expected) {
  return detail::wait_until<Order, Scope>(
      ctx, flag, [expected](flag_t v) { return v == expected; }, "==", expected);
}

// The next epoch of a counter in device memory that one thread owns (e.g. per block,
// per flag): ++*counter. Kept in device memory, not passed as a kernel argument, so a
// replayed CUDA graph advances it too.
__device__ __forceinline__ flag_t next_epoch(flag_t* counter) { return ++*counter; }

}  // namespace symm::device
