#pragma once
// The pairings of the message-passing litmus tests (litmus_ranks.cu between ranks,
// block_litmus.cu between blocks of one kernel): how the writer publishes its datum with
// a flag, whether the reader acquires after seeing it, and what the pairing must show.
// A stale read is a datum older than the flag it was published with.
#include <cuda/atomic>

#include <string>

#include "harness.hpp"
#include "symm/device/atomic.cuh"
#include "symm/device/signal.cuh"
#include "symm/host/log.hpp"

namespace symm::test {

// How the writer publishes: a store, a reduction, an exchange, or a fence first.
enum class Publish { store_relaxed, store_release, add_release, xchg_acq_rel, fence_then_relaxed };

// What a pairing must show over all its trials: no stale read (ordered), at least one (the
// weak control: without one, the zeros of the ordered pairings prove nothing), or either
// (half an ordering: counted and reported, not asserted).
enum class Expect { no_stale_read, some_stale_read, either };

struct Pairing {
  Publish publish;
  bool acquire;  // reader: acquire after the poll, or not
  const char* name;
  Expect expect;
};

inline constexpr Pairing kPairings[] = {
    {Publish::store_relaxed, false, "relaxed store / relaxed wait (weak control)", Expect::some_stale_read},
    {Publish::store_release, false, "release store / relaxed wait", Expect::either},
    {Publish::store_relaxed, true, "relaxed store / acquire wait", Expect::either},
    {Publish::store_release, true, "release store / acquire wait", Expect::no_stale_read},
    {Publish::add_release, true, "release red.add / acquire wait", Expect::no_stale_read},
    {Publish::xchg_acq_rel, true, "acq_rel exchange / acquire wait", Expect::no_stale_read},
    {Publish::fence_then_relaxed, true, "fence.acq_rel + relaxed store / acquire wait", Expect::no_stale_read},
};

// Raises rank `peer`'s flag to `value`; add_release adds 1, so the flag must hold value - 1.
template <Publish P, cuda::thread_scope Scope>
__device__ void raise(const device::Context& ctx, device::flag_t* flag, int peer, device::flag_t value) {
  using namespace device;
  constexpr auto relaxed = cuda::memory_order_relaxed, release = cuda::memory_order_release;
  if constexpr (P == Publish::store_relaxed) signal_set<relaxed, Scope>(ctx, flag, peer, value);
  if constexpr (P == Publish::store_release) signal_set<release, Scope>(ctx, flag, peer, value);
  if constexpr (P == Publish::add_release) signal_add<release, Scope>(ctx, flag, peer, flag_t{1});
  if constexpr (P == Publish::xchg_acq_rel) atomic_xchg<cuda::memory_order_acq_rel, Scope>(ctx, flag, peer, value);
  if constexpr (P == Publish::fence_then_relaxed) {
    fence<release, Scope>();
    signal_set<relaxed, Scope>(ctx, flag, peer, value);
  }
}

// Logs a pairing's count of stale reads and checks it against what the pairing must show.
inline void check_stale_reads(Failures& failures, const Pairing& pairing, unsigned long long stale,
                              unsigned long long trials, const std::string& where) {
  const std::string seen = std::to_string(stale) + " stale reads in " + std::to_string(trials) + " trials";
  log::info("litmus " + where + ", " + pairing.name + ": " + seen);
  if (pairing.expect == Expect::no_stale_read)
    failures.check(stale == 0, where + ", " + pairing.name + ": " + seen + " (must be 0)");
  if (pairing.expect == Expect::some_stale_read)
    failures.check(stale > 0, "no power: " + where + ", " + pairing.name +
                                  " showed no stale read in " + std::to_string(trials) +
                                  " trials, so the zeros of the ordered pairings prove nothing");
}

}  // namespace symm::test
