// 04_atomic_add: atomic adds on another rank's heap, throughput and latency.
//
// Validation: every rank adds 1 to each slot of every rank (including its own)
// `iterations` times, with relaxed system-scope atomics; each slot must end at
// world * iterations. Benchmark: for every pair (i, j), rank i's grid adds to its own
// slots on rank j (throughput: a warp's 32 adds go to 32 consecutive slots, so they
// travel together), then one thread chains dependent adds (latency).
//
//   04_atomic_add -r 2 --validate --benchmark --iterations 1000
#include <cuda/atomic>

#include <cstdint>

#include "atomic_bench.cuh"
#include "example.hpp"
#include "pattern.hpp"
#include "symm/device/atomic.cuh"
#include "symm/host/cuda_check.hpp"
#include "symm/host/launch.hpp"

namespace {

using namespace symm;
using namespace symm::examples;

// Adds 1 + the old value's top bit: 1 while counts stay below 2^31, but computed from
// the result, so each add of a chain waits for the previous one (a constant operand
// would let the adds overlap).
struct AddOne {
  __device__ std::uint32_t operator()(const device::Context& ctx, std::uint32_t* slot, int target,
                                      std::uint32_t previous) const {
    return device::atomic_add<cuda::memory_order_relaxed>(ctx, slot, target, 1u + (previous >> 31));
  }
};

void atomic_add_example(Session& s) {
  Runtime& rt = s.runtime();
  const std::uint64_t slots_count = atomic_slots(s);
  auto* slots = static_cast<std::uint32_t*>(rt.heap().allocate(slots_count * sizeof(std::uint32_t)));
  auto* sink = static_cast<std::uint32_t*>(rt.heap().allocate(sizeof(std::uint32_t)));
  const int iterations = s.options().iterations;

  if (s.options().validate) {
    SYMM_CUDA_CHECK(cudaMemsetAsync(slots, 0, slots_count * sizeof(std::uint32_t), s.stream()));
    rt.barrier(s.stream());
    for (int target = 0; target < rt.world(); ++target) {
      atomic_throughput_kernel<<<s.blocks(), s.options().threads, 0, s.stream()>>>(
          rt.context(), slots, target, iterations, AddOne{});
    }
    rt.barrier(s.stream());
    s.validated("every rank adds 1 to every slot of every rank " + std::to_string(iterations) + " times",
                count_words_not_equal(slots, slots_count, static_cast<std::uint32_t>(rt.world() * iterations),
                                      s.stream()));
  }
  if (s.options().benchmark) measure_atomics(s, slots, sink, AddOne{});
}

const Spec kSpec{
    .name = "04_atomic_add",
    .summary = "atomic_add on every rank's heap: throughput and latency, every pair",
    .has_sizes = false,
    .iterations = 1000,
    .heap_bytes = [](int, std::uint64_t) { return std::uint64_t{64} << 20; },
};

}  // namespace

int main(int argc, char** argv) { symm::exit_with(symm::examples::run(argc, argv, kSpec, atomic_add_example)); }
