// Message passing with answers: the producer writes a message into the consumer's
// inbox, then raises the inbox flag; the consumer waits for it, checks every word,
// then raises the producer's answer flag; the producer waits for the answer before the
// next message. Sequence numbers continue from counters in device memory (epochs), so
// a second launch reuses the flags without any reset. Nothing may be lost, repeated
// or corrupted.
#include <chrono>
#include <cstdint>
#include <string>

#include "harness.hpp"
#include "rank_bodies.hpp"
#include "symm/device/rma.cuh"
#include "symm/device/signal.cuh"
#include "symm/host/cuda_check.hpp"
#include "symm/host/log.hpp"

namespace symm::test {
namespace {

using device::Context;
using device::flag_t;

struct Channel {
  flag_t* inbox_flag;          // heap: the sequence number of the message in the inbox
  flag_t* answer_flag;         // heap: the last sequence number the consumer checked
  std::uint64_t* inbox;        // heap: the message
  flag_t* sequence;            // this rank's count of messages sent or received so far
  unsigned long long* errors;  // consumer: words wrong, messages skipped
};

__device__ std::uint64_t word_of(flag_t sequence, int w) {
  return sequence * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(w);
}

__global__ void produce(Context ctx, Channel ch, int messages, int words, int consumer) {
  __shared__ flag_t first;
  if (threadIdx.x == 0) first = *ch.sequence;
  __syncthreads();
  for (int i = 1; i <= messages; ++i) {
    const flag_t s = first + i;
    for (int w = threadIdx.x; w < words; w += blockDim.x) {
      device::store(ctx, &ch.inbox[w], consumer, word_of(s, w));
    }
    __syncthreads();  // every word is written before the flag is released
    if (threadIdx.x == 0) {
      device::signal_set(ctx, ch.inbox_flag, consumer, s);
      device::wait_equal(ctx, ch.answer_flag, s);
    }
    __syncthreads();  // the inbox is free again
  }
  if (threadIdx.x == 0) *ch.sequence = first + messages;
}

__global__ void consume(Context ctx, Channel ch, int messages, int words, int producer) {
  __shared__ flag_t first, seen;
  if (threadIdx.x == 0) first = *ch.sequence;
  __syncthreads();
  unsigned long long errors = 0;
  for (int i = 1; i <= messages; ++i) {
    const flag_t s = first + i;
    if (threadIdx.x == 0) seen = device::wait_at_least(ctx, ch.inbox_flag, s);
    __syncthreads();
    if (threadIdx.x == 0 && seen != s) ++errors;  // a message skipped
    for (int w = threadIdx.x; w < words; w += blockDim.x) {
      if (ch.inbox[w] != word_of(s, w)) ++errors;
    }
    __syncthreads();  // every word is checked before the answer
    if (threadIdx.x == 0) device::signal_set(ctx, ch.answer_flag, producer, s);
  }
  if (threadIdx.x == 0) *ch.sequence = first + messages;
  if (errors) atomicAdd(ch.errors, errors);
}

}  // namespace

int message_rank_body(Runtime& rt, int messages) {
  Failures failures("message passing");
  if (rt.world() < 2) {
    failures.check(false, "message passing needs 2 ranks or more");
    return failures.exit_code();
  }
  cudaStream_t stream;
  SYMM_CUDA_CHECK(cudaStreamCreate(&stream));
  constexpr int kWords = 64;
  Channel ch{};
  ch.inbox_flag = static_cast<flag_t*>(rt.heap().allocate(sizeof(flag_t)));
  ch.answer_flag = static_cast<flag_t*>(rt.heap().allocate(sizeof(flag_t)));
  ch.inbox = static_cast<std::uint64_t*>(rt.heap().allocate(kWords * sizeof(std::uint64_t)));
  SYMM_CUDA_CHECK(cudaMalloc(&ch.sequence, sizeof(flag_t)));
  SYMM_CUDA_CHECK(cudaMalloc(&ch.errors, sizeof(unsigned long long)));
  SYMM_CUDA_CHECK(cudaMemsetAsync(ch.inbox_flag, 0, sizeof(flag_t), stream));
  SYMM_CUDA_CHECK(cudaMemsetAsync(ch.answer_flag, 0, sizeof(flag_t), stream));
  SYMM_CUDA_CHECK(cudaMemsetAsync(ch.sequence, 0, sizeof(flag_t), stream));
  SYMM_CUDA_CHECK(cudaMemsetAsync(ch.errors, 0, sizeof(unsigned long long), stream));
  rt.barrier(stream);

  // Rank 0 talks to rank 1; other ranks watch. Two launches: the second continues the
  // sequence numbers of the first on the same flags.
  const int me = rt.rank();
  for (int launch = 0; launch < 2; ++launch) {
    const auto start = std::chrono::steady_clock::now();
    if (me == 0) produce<<<1, 256, 0, stream>>>(rt.context(), ch, messages, kWords, 1);
    if (me == 1) consume<<<1, 256, 0, stream>>>(rt.context(), ch, messages, kWords, 0);
    SYMM_CUDA_CHECK(cudaGetLastError());
    SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    if (me <= 1) {
      log::info("message passing: " + std::to_string(messages) + " round trips of " +
                std::to_string(kWords * 8) + " bytes in " + std::to_string(us / 1000) + " ms (" +
                std::to_string(us / messages) + " us each, launch included)");
    }
    rt.barrier(stream);
  }

  flag_t sequence = 0;
  unsigned long long errors = 0;
  SYMM_CUDA_CHECK(cudaMemcpy(&sequence, ch.sequence, sizeof(sequence), cudaMemcpyDeviceToHost));
  SYMM_CUDA_CHECK(cudaMemcpy(&errors, ch.errors, sizeof(errors), cudaMemcpyDeviceToHost));
  if (me <= 1) {
    failures.check(sequence == 2ull * messages,
                   "rank " + std::to_string(me) + " counted " + std::to_string(sequence) +
                       " messages, expected " + std::to_string(2ull * messages));
    failures.check(errors == 0, std::to_string(errors) + " wrong words or skipped messages");
  }
  SYMM_CUDA_CHECK(cudaFree(ch.sequence));
  SYMM_CUDA_CHECK(cudaFree(ch.errors));
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
  return failures.exit_code();
}

}  // namespace symm::test
