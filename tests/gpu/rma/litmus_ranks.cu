// Message-passing litmus test, per memory order: a producer thread writes a datum to a
// peer, then raises that peer's flag; the consumer thread waits for the flag, then
// reads the datum. A datum older than the flag it was published with is a stale read.
// Release (or an acq_rel RMW, or a release fence) on the producer side paired with
// acquire on the consumer side must never give one; the weaker pairings are allowed
// to and their counts are reported, not asserted.
#include <cuda/atomic>

#include <cstdint>
#include <iterator>
#include <string>

#include "harness.hpp"
#include "type_lists.cuh"
#include "rank_bodies.hpp"
#include "symm/device/atomic.cuh"
#include "symm/device/rma.cuh"
#include "symm/device/signal.cuh"
#include "symm/host/cuda_check.hpp"
#include "symm/host/log.hpp"

namespace symm::test {
namespace {

using device::Context;
using device::flag_t;

// How the producer publishes: a store, a reduction, an exchange, or a fence first.
enum class Publish { store_relaxed, store_release, add_release, xchg_acq_rel, fence_then_relaxed };

struct Pairing {
  Publish publish;
  bool acquire;  // consumer: acquire after the poll, or not
  const char* name;
  bool must_be_ordered;
};

constexpr Pairing kPairings[] = {
    {Publish::store_relaxed, false, "relaxed store / relaxed wait", false},
    {Publish::store_release, false, "release store / relaxed wait", false},
    {Publish::store_relaxed, true, "relaxed store / acquire wait", false},
    {Publish::store_release, true, "release store / acquire wait", true},
    {Publish::add_release, true, "release red.add / acquire wait", true},
    {Publish::xchg_acq_rel, true, "acq_rel exchange / acquire wait", true},
    {Publish::fence_then_relaxed, true, "fence.acq_rel + relaxed store / acquire wait", true},
};

template <Publish publish>
__device__ void raise(const Context& ctx, flag_t* flag, int peer, flag_t round) {
  using namespace device;
  constexpr auto relaxed = cuda::memory_order_relaxed;
  if constexpr (publish == Publish::store_relaxed) signal_set<relaxed>(ctx, flag, peer, round);
  if constexpr (publish == Publish::store_release) signal_set(ctx, flag, peer, round);
  if constexpr (publish == Publish::add_release) signal_add(ctx, flag, peer, flag_t{1});
  if constexpr (publish == Publish::xchg_acq_rel) atomic_xchg(ctx, flag, peer, round);
  if constexpr (publish == Publish::fence_then_relaxed) {
    fence<cuda::memory_order_release, cuda::thread_scope_system>();
    signal_set<relaxed>(ctx, flag, peer, round);
  }
}

// Thread t of the producer rank owns data[t] and flag[t] on the consumer rank; every
// flag value v is published after data[t] = v. Flags start at `base` (epochs: nothing
// is reset between pairings).
template <Publish publish, bool Acquire>
__global__ void litmus(Context ctx, flag_t* data, flag_t* flags, flag_t base, int rounds,
                       bool producer, int peer, unsigned long long* stale) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (producer) {
    for (int i = 1; i <= rounds; ++i) {
      device::store(ctx, &data[t], peer, base + i);
      raise<publish>(ctx, &flags[t], peer, base + i);
    }
    return;
  }
  constexpr auto order = Acquire ? cuda::memory_order_acquire : cuda::memory_order_relaxed;
  unsigned long long my_stale = 0;
  for (flag_t seen = base; seen < base + rounds;) {
    seen = device::wait_at_least<order>(ctx, &flags[t], seen + 1);
    if (data[t] < seen) ++my_stale;
  }
  atomicAdd(stale, my_stale);
}

}  // namespace

int litmus_rank_body(Runtime& rt) {
  Failures failures("litmus");
  cudaStream_t stream;
  SYMM_CUDA_CHECK(cudaStreamCreate(&stream));
  constexpr int kBlocks = 8, kThreads = 128, kPairs = kBlocks * kThreads;
  const int rounds = scaled(rt, 4000, 100);
  auto* data = static_cast<flag_t*>(rt.heap().allocate(kPairs * sizeof(flag_t)));
  auto* flags = static_cast<flag_t*>(rt.heap().allocate(kPairs * sizeof(flag_t)));
  unsigned long long* stale = nullptr;
  SYMM_CUDA_CHECK(cudaMalloc(&stale, sizeof(*stale)));
  SYMM_CUDA_CHECK(cudaMemsetAsync(data, 0, kPairs * sizeof(flag_t), stream));
  SYMM_CUDA_CHECK(cudaMemsetAsync(flags, 0, kPairs * sizeof(flag_t), stream));
  rt.barrier(stream);

  // Even ranks produce for the next rank; with an odd world the last rank only consumes.
  const bool producer = rt.rank() % 2 == 0 && rt.rank() + 1 < rt.world();
  const bool consumer = rt.rank() % 2 == 1;
  flag_t base = 0;
  for_each_index<std::size(kPairings)>([&]<std::size_t I>() {
    constexpr Pairing pairing = kPairings[I];
    SYMM_CUDA_CHECK(cudaMemsetAsync(stale, 0, sizeof(*stale), stream));
    if (producer || consumer) {
      litmus<pairing.publish, pairing.acquire><<<kBlocks, kThreads, 0, stream>>>(
          rt.context(), data, flags, base, rounds, producer, producer ? rt.rank() + 1 : rt.rank(),
          stale);
      SYMM_CUDA_CHECK(cudaGetLastError());
    }
    unsigned long long seen_stale = 0;
    SYMM_CUDA_CHECK(cudaMemcpyAsync(&seen_stale, stale, sizeof(seen_stale), cudaMemcpyDeviceToHost, stream));
    rt.barrier(stream);
    if (consumer) {
      log::info(std::string("litmus ") + pairing.name + ": " + std::to_string(seen_stale) +
                " stale reads in " + std::to_string(rounds * kPairs) + " rounds");
      if (pairing.must_be_ordered) {
        failures.check(seen_stale == 0, std::string(pairing.name) + " let " +
                                            std::to_string(seen_stale) + " stale reads through");
      }
    }
    base += rounds;
  });
  SYMM_CUDA_CHECK(cudaFree(stale));
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
  return failures.exit_code();
}

}  // namespace symm::test
