// Message-passing litmus test between blocks of one kernel in one process, device scope,
// per pairing (litmus_pairings.cuh): where ranks sharing a GPU take turns, blocks on
// different SMs run at once, so reordering can be seen on a single GPU.
//
// Each block asks for more than half an SM's shared memory, so no two share an SM (and
// its L1). Block 2p writes for block 2p + 1; thread t of the pair owns one datum, one
// flag and one acknowledgement, each in its own array (the datum and its flag never share
// a cache line). Trials run in lockstep: the reader reads the old datum, acknowledges,
// and waits for the flag; the writer, once acknowledged, writes the datum and raises the
// flag; the reader reads the datum again. The first read leaves the old datum's line in
// the reader's L1, which another SM's store does not invalidate and only an acquire (its
// fence) does: without one the second read is served the stale line. That is what gives
// the weak control its power, and what the ordered pairings must overcome. (The compiler
// may take the previous trial's second read as this trial's first, nothing ordering the
// two: the line is in the L1 all the same.)
#include <cuda/atomic>

#include <cstdint>
#include <iterator>
#include <string>

#include "harness.hpp"
#include "litmus_pairings.cuh"
#include "rank_bodies.hpp"
#include "symm/device/rma.cuh"
#include "symm/device/signal.cuh"
#include "symm/host/cuda_check.hpp"
#include "symm/host/log.hpp"
#include "type_lists.cuh"

namespace symm::test {
namespace {

using device::Context;
using device::flag_t;

constexpr int kThreads = 128, kTrials = 4000;

struct Counts {
  unsigned long long stale;         // datum older than the flag seen
  unsigned long long stale_primed;  // of those, the very datum read before the flag
};

template <Publish publish, bool Acquire>
__global__ void block_litmus(Context ctx, flag_t* data, flag_t* flags, flag_t* acks, flag_t base,
                             Counts* counts) {
  constexpr auto device_scope = cuda::thread_scope_device;
  constexpr auto relaxed = cuda::memory_order_relaxed;
  const std::size_t i = std::size_t(blockIdx.x / 2) * blockDim.x + threadIdx.x;
  const int me = ctx.rank;  // one rank: every address is this process's own
  if (blockIdx.x % 2 == 0) {
    for (flag_t t = base + 1; t <= base + kTrials; ++t) {
      device::wait_at_least<relaxed, device_scope>(ctx, &acks[i], t - 1);  // the reader is ready
      device::store(ctx, &data[i], me, t);
      raise<publish, device_scope>(ctx, &flags[i], me, t);
    }
    return;
  }
  constexpr auto order = Acquire ? cuda::memory_order_acquire : relaxed;
  Counts mine{0, 0};
  for (flag_t t = base + 1; t <= base + kTrials; ++t) {
    const flag_t primed = device::load(ctx, &data[i], me);
    device::signal_set<relaxed, device_scope>(ctx, &acks[i], me, t - 1);
    const flag_t seen = device::wait_at_least<order, device_scope>(ctx, &flags[i], t);
    const flag_t got = device::load(ctx, &data[i], me);
    if (got < seen) {
      ++mine.stale;
      if (got == primed) ++mine.stale_primed;
    }
  }
  atomicAdd(&counts->stale, mine.stale);
  atomicAdd(&counts->stale_primed, mine.stale_primed);
}

}  // namespace

int block_litmus_body(Runtime& rt) {
  Failures failures("block litmus");
  cudaStream_t stream;
  SYMM_CUDA_CHECK(cudaStreamCreate(&stream));
  int gpu = 0, sms = 0, shared_per_sm = 0;
  SYMM_CUDA_CHECK(cudaGetDevice(&gpu));
  SYMM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gpu));
  SYMM_CUDA_CHECK(cudaDeviceGetAttribute(&shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, gpu));
  const int pairs = sms / 2;
  const std::size_t shared_bytes = std::size_t(shared_per_sm) / 2 + 1024;  // one block per SM
  const std::size_t words = std::size_t(pairs) * kThreads;
  auto* data = static_cast<flag_t*>(rt.heap().allocate(words * sizeof(flag_t)));
  auto* flags = static_cast<flag_t*>(rt.heap().allocate(words * sizeof(flag_t)));
  auto* acks = static_cast<flag_t*>(rt.heap().allocate(words * sizeof(flag_t)));
  for (flag_t* words_d : {data, flags, acks})
    SYMM_CUDA_CHECK(cudaMemsetAsync(words_d, 0, words * sizeof(flag_t), stream));
  Counts* counts = nullptr;
  SYMM_CUDA_CHECK(cudaMalloc(&counts, sizeof(Counts)));

  flag_t base = 0;  // epochs: nothing is reset between pairings
  for_each_index<std::size(kPairings)>([&]<std::size_t I>() {
    constexpr Pairing pairing = kPairings[I];
    const auto kernel = block_litmus<pairing.publish, pairing.acquire>;
    SYMM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes)));
    int per_sm = 0;
    SYMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, shared_bytes));
    failures.check(per_sm == 1, std::to_string(per_sm) + " blocks fit on an SM, not 1: writer and reader "
                                "may share an L1, where the weak control cannot show a stale read");
    SYMM_CUDA_CHECK(cudaMemsetAsync(counts, 0, sizeof(Counts), stream));
    kernel<<<2 * pairs, kThreads, shared_bytes, stream>>>(rt.context(), data, flags, acks, base, counts);
    SYMM_CUDA_CHECK(cudaGetLastError());
    Counts seen{};
    SYMM_CUDA_CHECK(cudaMemcpyAsync(&seen, counts, sizeof(seen), cudaMemcpyDeviceToHost, stream));
    SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    check_stale_reads(failures, pairing, seen.stale, std::uint64_t(kTrials) * words,
                      "between blocks on " + std::to_string(2 * pairs) + " SMs");
    if (seen.stale > 0)
      log::info("  of which " + std::to_string(seen.stale_primed) +
                " gave the very datum read before the flag: the line in the reader's L1");
    base += kTrials;
  });
  SYMM_CUDA_CHECK(cudaFree(counts));
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
  return failures.exit_code();
}

}  // namespace symm::test
