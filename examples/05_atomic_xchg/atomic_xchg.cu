// 05_atomic_xchg: atomic exchanges on another rank's heap, throughput and latency.
//
// Validation: every rank exchanges tokens into each slot of every rank (including its
// own) `iterations` times. Exchanges move values, never make or lose one: over all
// ranks, initial values + tokens put in == final values + values taken out, checked
// as a sum and as an xor. Benchmark: for every pair (i, j), rank i's grid exchanges
// into its own slots on rank j (throughput), then one thread chains exchanges whose
// operand is the previous result + 1 (latency).
//
//   05_atomic_xchg -r 2 --validate --benchmark --iterations 1000
#include <cuda/atomic>

#include <cstdint>
#include <cstring>
#include <span>

#include "atomic_bench.cuh"
#include "example.hpp"
#include "pattern.hpp"
#include "symm/device/atomic.cuh"
#include "symm/host/cuda_check.hpp"
#include "symm/host/launch.hpp"

namespace {

using namespace symm;
using namespace symm::examples;

struct ExchangeNext {
  __device__ std::uint32_t operator()(const device::Context& ctx, std::uint32_t* slot, int target,
                                      std::uint32_t previous) const {
    return device::atomic_xchg<cuda::memory_order_relaxed>(ctx, slot, target, previous + 1);
  }
};

// Sum and xor of what went into and came out of the slots.
struct Ledger {
  unsigned long long put_sum, put_xor, taken_sum, taken_xor;
};

__global__ void exchange_tokens(device::Context ctx, std::uint32_t* slots, int iterations,
                                Ledger* ledger) {
  const std::uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  Ledger mine{};
  for (int target = 0; target < ctx.world; ++target) {
    for (int k = 0; k < iterations; ++k) {
      const std::uint32_t token = (g * 2654435761u) ^ ((k * ctx.world + ctx.rank) * 40503u + target);
      const std::uint32_t taken =
          device::atomic_xchg<cuda::memory_order_relaxed>(ctx, &slots[g], target, token);
      mine.put_sum += token;
      mine.put_xor ^= token;
      mine.taken_sum += taken;
      mine.taken_xor ^= taken;
    }
  }
  atomicAdd(&ledger->put_sum, mine.put_sum);
  atomicXor(&ledger->put_xor, mine.put_xor);
  atomicAdd(&ledger->taken_sum, mine.taken_sum);
  atomicXor(&ledger->taken_xor, mine.taken_xor);
}

// Adds the sum and xor of n slots into *sum and *xor_all: the initial values count as
// put in, the final ones as taken out.
__global__ void account(const std::uint32_t* slots, std::uint64_t n, unsigned long long* sum,
                        unsigned long long* xor_all) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    atomicAdd(sum, static_cast<unsigned long long>(slots[i]));
    atomicXor(xor_all, static_cast<unsigned long long>(slots[i]));
  }
}

// True when, over all ranks, everything put in was taken out or is still there.
bool conserved(Runtime& rt, const Ledger& mine) {
  const auto bytes = rt.team().all_gather(std::as_bytes(std::span(&mine, 1)));
  Ledger total{};
  for (int r = 0; r < rt.world(); ++r) {
    Ledger l;
    std::memcpy(&l, bytes.data() + r * sizeof(Ledger), sizeof(Ledger));
    total.put_sum += l.put_sum;
    total.put_xor ^= l.put_xor;
    total.taken_sum += l.taken_sum;
    total.taken_xor ^= l.taken_xor;
  }
  return total.put_sum == total.taken_sum && total.put_xor == total.taken_xor;
}

void validate_conservation(Session& s, std::uint32_t* slots) {
  Runtime& rt = s.runtime();
  const std::uint64_t n = atomic_slots(s);
  Ledger* ledger = nullptr;
  SYMM_CUDA_CHECK(cudaMallocAsync(&ledger, sizeof(Ledger), s.stream()));
  SYMM_CUDA_CHECK(cudaMemsetAsync(ledger, 0, sizeof(Ledger), s.stream()));
  fill_pattern(slots, n * sizeof(std::uint32_t), rt.rank(), s.stream());
  account<<<264, 256, 0, s.stream()>>>(slots, n, &ledger->put_sum, &ledger->put_xor);
  rt.barrier(s.stream());
  exchange_tokens<<<s.blocks(), s.options().threads, 0, s.stream()>>>(rt.context(), slots,
                                                                      s.options().iterations, ledger);
  rt.barrier(s.stream());
  account<<<264, 256, 0, s.stream()>>>(slots, n, &ledger->taken_sum, &ledger->taken_xor);
  Ledger mine{};
  SYMM_CUDA_CHECK(cudaMemcpyAsync(&mine, ledger, sizeof(Ledger), cudaMemcpyDeviceToHost, s.stream()));
  SYMM_CUDA_CHECK(cudaFreeAsync(ledger, s.stream()));
  SYMM_CUDA_CHECK(cudaStreamSynchronize(s.stream()));
  s.validated("tokens exchanged into every slot of every rank are conserved", conserved(rt, mine) ? 0 : 1);
}

void atomic_xchg_example(Session& s) {
  Runtime& rt = s.runtime();
  const std::uint64_t slots_count = atomic_slots(s);
  auto* slots = static_cast<std::uint32_t*>(rt.heap().allocate(slots_count * sizeof(std::uint32_t)));
  auto* sink = static_cast<std::uint32_t*>(rt.heap().allocate(sizeof(std::uint32_t)));
  if (s.options().validate) validate_conservation(s, slots);
  if (s.options().benchmark) measure_atomics(s, slots, sink, ExchangeNext{});
}

const Spec kSpec{
    .name = "05_atomic_xchg",
    .summary = "atomic_xchg on every rank's heap: throughput and latency, every pair",
    .has_sizes = false,
    .iterations = 1000,
    .heap_bytes = [](int, std::uint64_t) { return std::uint64_t{64} << 20; },
};

}  // namespace

int main(int argc, char** argv) { symm::exit_with(symm::examples::run(argc, argv, kSpec, atomic_xchg_example)); }
