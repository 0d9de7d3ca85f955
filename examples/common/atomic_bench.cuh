#pragma once
// Throughput and latency of one atomic operation between every pair of ranks (the
// shared part of 04_atomic_add and 05_atomic_xchg).
//
// `Apply` is a functor: apply(ctx, slot, target, previous) performs one atomic on rank
// target's copy of *slot, with an operand derived from `previous`, and returns the old
// value. Throughput: every thread of the grid hammers its own slot, `iterations` times,
// independent operations. Latency: one thread, each operation's operand depends on the
// previous result, so every round trip to the target completes before the next starts.
#include <cstdint>
#include <string>

#include "example.hpp"
#include "symm/device/context.cuh"

namespace symm::examples {

template <class T, class Apply>
__global__ void atomic_throughput_kernel(device::Context ctx, T* slots, int target,
                                         int iterations, Apply apply) {
  T* slot = slots + blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < iterations; ++k) apply(ctx, slot, target, static_cast<T>(k));
}

template <class T, class Apply>
__global__ void atomic_latency_kernel(device::Context ctx, T* slot, int target, int iterations,
                                      Apply apply, T* sink) {
  T previous = 0;
  for (int k = 0; k < iterations; ++k) previous = apply(ctx, slot, target, previous);
  *sink = previous;  // keeps the chain alive
}

// Slots every thread of a throughput kernel uses, per rank.
inline std::uint64_t atomic_slots(const Session& s) {
  return static_cast<std::uint64_t>(s.blocks()) * s.options().threads;
}

// Records "throughput" (Mops/s) and "latency" (us per operation) for every pair.
template <class T, class Apply>
void measure_atomics(Session& s, T* slots, T* sink, Apply apply) {
  Runtime& rt = s.runtime();
  const int iterations = s.options().iterations;
  for (const Pair pair : s.pairs(/*include_self=*/true)) {
    const bool initiator = rt.rank() == pair.initiator;
    const CrossRankSummary many = s.time([&] {
      if (!initiator) return;
      atomic_throughput_kernel<<<s.blocks(), s.options().threads, 0, s.stream()>>>(
          rt.context(), slots, pair.target, iterations, apply);
    });
    const double ops = static_cast<double>(atomic_slots(s)) * iterations;
    s.record({"throughput", "Mops/s", 0, pair.initiator, pair.target, ops / many.headline_ms / 1e3},
             many);
    const CrossRankSummary chain = s.time([&] {
      if (!initiator) return;
      atomic_latency_kernel<<<1, 1, 0, s.stream()>>>(rt.context(), slots, pair.target,
                                                     iterations, apply, sink);
    });
    s.record({"latency", "us", 0, pair.initiator, pair.target, chain.headline_ms * 1e3 / iterations},
             chain);
  }
}

}  // namespace symm::examples
