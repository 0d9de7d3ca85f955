// Message-passing litmus test between ranks, per pairing (litmus_pairings.cuh): a writer
// thread writes a datum to a peer, then raises that peer's flag, system scope; the reader
// thread waits for the flag, then reads the datum. Run only where the ranks have GPUs of
// their own (ordering_test.cc, tests/multigpu/rma): ranks sharing one GPU take turns, and
// no reordering between them can be seen.
#include <cuda/atomic>

#include <cstdint>
#include <iterator>

#include "harness.hpp"
#include "litmus_pairings.cuh"
#include "rank_bodies.hpp"
#include "symm/device/rma.cuh"
#include "symm/device/signal.cuh"
#include "symm/host/cuda_check.hpp"
#include "type_lists.cuh"

namespace symm::test {
namespace {

using device::Context;
using device::flag_t;

// Thread t of the writer rank owns data[t] and flag[t] on the reader rank; every flag
// value v is published after data[t] = v. Flags start at `base` (epochs: nothing is
// reset between pairings).
template <Publish publish, bool Acquire>
__global__ void litmus(Context ctx, flag_t* data, flag_t* flags, flag_t base, int rounds,
                       bool writer, int peer, unsigned long long* stale) {
  constexpr auto system = cuda::thread_scope_system;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (writer) {
    for (int i = 1; i <= rounds; ++i) {
      device::store(ctx, &data[t], peer, base + i);
      raise<publish, system>(ctx, &flags[t], peer, base + i);
    }
    return;
  }
  constexpr auto order = Acquire ? cuda::memory_order_acquire : cuda::memory_order_relaxed;
  unsigned long long my_stale = 0;
  for (flag_t seen = base; seen < base + rounds;) {
    seen = device::wait_at_least<order, system>(ctx, &flags[t], seen + 1);
    if (data[t] < seen) ++my_stale;
  }
  atomicAdd(stale, my_stale);
}

}  // namespace

int litmus_rank_body(Runtime& rt) {
  Failures failures("litmus");
  cudaStream_t stream;
  SYMM_CUDA_CHECK(cudaStreamCreate(&stream));
  constexpr int kBlocks = 8, kThreads = 128, kPairs = kBlocks * kThreads, kRounds = 4000;
  auto* data = static_cast<flag_t*>(rt.heap().allocate(kPairs * sizeof(flag_t)));
  auto* flags = static_cast<flag_t*>(rt.heap().allocate(kPairs * sizeof(flag_t)));
  unsigned long long* stale = nullptr;
  SYMM_CUDA_CHECK(cudaMalloc(&stale, sizeof(*stale)));
  SYMM_CUDA_CHECK(cudaMemsetAsync(data, 0, kPairs * sizeof(flag_t), stream));
  SYMM_CUDA_CHECK(cudaMemsetAsync(flags, 0, kPairs * sizeof(flag_t), stream));
  rt.barrier(stream);

  // Even ranks write for the next rank; with an odd world the last rank only reads.
  const bool writer = rt.rank() % 2 == 0 && rt.rank() + 1 < rt.world();
  const bool reader = rt.rank() % 2 == 1;
  flag_t base = 0;
  for_each_index<std::size(kPairings)>([&]<std::size_t I>() {
    constexpr Pairing pairing = kPairings[I];
    SYMM_CUDA_CHECK(cudaMemsetAsync(stale, 0, sizeof(*stale), stream));
    if (writer || reader) {
      litmus<pairing.publish, pairing.acquire><<<kBlocks, kThreads, 0, stream>>>(
          rt.context(), data, flags, base, kRounds, writer, writer ? rt.rank() + 1 : rt.rank(), stale);
      SYMM_CUDA_CHECK(cudaGetLastError());
    }
    unsigned long long seen_stale = 0;
    SYMM_CUDA_CHECK(cudaMemcpyAsync(&seen_stale, stale, sizeof(seen_stale), cudaMemcpyDeviceToHost, stream));
    rt.barrier(stream);
    if (reader) check_stale_reads(failures, pairing, seen_stale, kRounds * kPairs, "between ranks");
    base += kRounds;
  });
  SYMM_CUDA_CHECK(cudaFree(stale));
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
  return failures.exit_code();
}

}  // namespace symm::test
