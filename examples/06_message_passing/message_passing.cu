// 06_message_passing: a producer writes a message into a consumer's heap, then raises a
// flag; the consumer waits for the flag, checks the message, then answers with a flag
// of its own; the producer waits for the answer before the next message.
//
// For every pair (producer i, consumer j) and message size: round-trip latency, and
// (validation) every word of every message checked, no message skipped. Flags carry
// sequence numbers kept in device memory, so nothing is reset between messages,
// launches or benchmark iterations.
//
//   06_message_passing -r 2 --validate --benchmark --min_bytes 8B --max_bytes 1MiB
#include <cstdint>

#include "example.hpp"
#include "symm/device/bits.cuh"
#include "symm/device/rma.cuh"
#include "symm/device/signal.cuh"
#include "symm/host/cuda_check.hpp"
#include "symm/host/launch.hpp"

namespace {

using namespace symm;
using namespace symm::examples;
using device::flag_t;

// Every rank's mailboxes: on the heap, a slot per producer (inbox, inbox_flag) and a
// flag per consumer (answer_flag); in this rank's device memory, the sequence numbers
// it reached with each peer.
struct Mailboxes {
  std::uint64_t* inbox;    // heap: world slots of slot_words words
  flag_t* inbox_flag;      // heap: [producer] last message in that producer's slot
  flag_t* answer_flag;     // heap: [consumer] last message that consumer checked
  flag_t* sent;            // device: [consumer] messages sent to it so far
  flag_t* received;        // device: [producer] messages received from it so far
  unsigned long long* wrong;  // device: words wrong and messages skipped
  std::int64_t slot_words;
};

__device__ std::uint64_t word_of(flag_t sequence, std::int64_t w) {
  return sequence * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(w);
}

// Writes message `sequence` (words words) into this rank's slot of `consumer`'s inbox,
// 16 bytes per store where it can.
__device__ void write_message(const device::Context& ctx, const Mailboxes& box, int consumer,
                              flag_t sequence, std::int64_t words) {
  std::uint64_t* slot = box.inbox + ctx.rank * box.slot_words;
  auto* vectors = reinterpret_cast<device::Vec16<std::uint64_t>*>(slot);
  for (std::int64_t v = threadIdx.x; v < words / 2; v += blockDim.x) {
    device::store(ctx, &vectors[v], consumer, {word_of(sequence, 2 * v), word_of(sequence, 2 * v + 1)});
  }
  if (words % 2 && threadIdx.x == 0) {
    device::store(ctx, &slot[words - 1], consumer, word_of(sequence, words - 1));
  }
}

__global__ void produce(device::Context ctx, Mailboxes box, int consumer, std::int64_t words,
                        int messages) {
  const flag_t first = box.sent[consumer];
  for (int i = 1; i <= messages; ++i) {
    const flag_t sequence = first + i;
    write_message(ctx, box, consumer, sequence, words);
    __syncthreads();  // every word is written before the flag is released
    if (threadIdx.x == 0) {
      device::signal_set(ctx, &box.inbox_flag[ctx.rank], consumer, sequence);
      device::wait_equal(ctx, &box.answer_flag[consumer], sequence);
    }
    __syncthreads();  // the consumer is done with the slot
  }
  if (threadIdx.x == 0) box.sent[consumer] = first + messages;
}

__global__ void consume(device::Context ctx, Mailboxes box, int producer, std::int64_t words,
                        int messages) {
  __shared__ flag_t seen;
  const flag_t first = box.received[producer];
  const std::uint64_t* slot = box.inbox + producer * box.slot_words;
  unsigned long long wrong = 0;
  for (int i = 1; i <= messages; ++i) {
    const flag_t sequence = first + i;
    if (threadIdx.x == 0) seen = device::wait_at_least(ctx, &box.inbox_flag[producer], sequence);
    __syncthreads();  // the acquire above covers the whole block from here
    if (threadIdx.x == 0 && seen != sequence) ++wrong;  // a message was skipped
    for (std::int64_t w = threadIdx.x; w < words; w += blockDim.x) {
      if (slot[w] != word_of(sequence, w)) ++wrong;
    }
    __syncthreads();  // every word is checked before the answer
    if (threadIdx.x == 0) device::signal_set(ctx, &box.answer_flag[ctx.rank], producer, sequence);
  }
  if (threadIdx.x == 0) box.received[producer] = first + messages;
  if (wrong) atomicAdd(box.wrong, wrong);
}

Mailboxes make_mailboxes(Session& s) {
  Runtime& rt = s.runtime();
  const int world = rt.world();
  Mailboxes box{};
  // Slots start 16 bytes apart at least: write_message stores 16 bytes at a time.
  const std::uint64_t slot_bytes = (s.options().max_bytes + 15) / 16 * 16;
  box.slot_words = static_cast<std::int64_t>(slot_bytes / 8);
  box.inbox = static_cast<std::uint64_t*>(rt.heap().allocate(world * slot_bytes));
  box.inbox_flag = static_cast<flag_t*>(rt.heap().allocate(world * sizeof(flag_t)));
  box.answer_flag = static_cast<flag_t*>(rt.heap().allocate(world * sizeof(flag_t)));
  SYMM_CUDA_CHECK(cudaMalloc(&box.sent, world * sizeof(flag_t)));
  SYMM_CUDA_CHECK(cudaMalloc(&box.received, world * sizeof(flag_t)));
  SYMM_CUDA_CHECK(cudaMalloc(&box.wrong, sizeof(unsigned long long)));
  // Zeroed once: from here on, sequence numbers only grow.
  for (void* p : {static_cast<void*>(box.inbox_flag), static_cast<void*>(box.answer_flag),
                  static_cast<void*>(box.sent), static_cast<void*>(box.received)}) {
    SYMM_CUDA_CHECK(cudaMemsetAsync(p, 0, world * sizeof(flag_t), s.stream()));
  }
  SYMM_CUDA_CHECK(cudaMemsetAsync(box.wrong, 0, sizeof(unsigned long long), s.stream()));
  rt.barrier(s.stream());
  return box;
}

void message_passing_example(Session& s) {
  Runtime& rt = s.runtime();
  const Mailboxes box = make_mailboxes(s);
  const int messages = s.options().iterations;
  const std::vector<std::uint64_t> sizes = s.sizes();
  for (std::size_t done = 1; done <= sizes.size(); ++done) {
    const std::uint64_t size = sizes[done - 1];
    const auto words = static_cast<std::int64_t>(size / 8);
    for (const Pair pair : s.pairs(/*include_self=*/false)) {
      const auto exchange = [&] {
        if (rt.rank() == pair.initiator) {
          produce<<<1, 512, 0, s.stream()>>>(rt.context(), box, pair.target, words, messages);
        } else if (rt.rank() == pair.target) {
          consume<<<1, 512, 0, s.stream()>>>(rt.context(), box, pair.initiator, words, messages);
        }
      };
      if (s.options().validate) {
        exchange();
        unsigned long long wrong = 0;
        SYMM_CUDA_CHECK(cudaMemcpyAsync(&wrong, box.wrong, sizeof(wrong), cudaMemcpyDeviceToHost, s.stream()));
        SYMM_CUDA_CHECK(cudaMemsetAsync(box.wrong, 0, sizeof(wrong), s.stream()));
        SYMM_CUDA_CHECK(cudaStreamSynchronize(s.stream()));
        if (rt.rank() == pair.target) {
          s.validated(std::to_string(messages) + " messages of " + std::to_string(size) +
                          " bytes from rank " + std::to_string(pair.initiator),
                      wrong);
        }
      }
      if (s.options().benchmark) {
        const CrossRankSummary t = s.time(exchange);
        s.record({"round_trip", "us", size, pair.initiator, pair.target, t.headline_ms * 1e3 / messages},
                 t);
      }
    }
    s.progress(std::to_string(size) + "-byte messages done, every pair (" +
               std::to_string(done) + " of " + std::to_string(sizes.size()) + " sizes)");
  }
  for (void* p : {static_cast<void*>(box.sent), static_cast<void*>(box.received),
                  static_cast<void*>(box.wrong)}) {
    SYMM_CUDA_CHECK(cudaFree(p));
  }
}

const Spec kSpec{
    .name = "06_message_passing",
    .summary = "producer writes a message and a flag, consumer waits, checks and answers: "
               "round-trip latency, every pair, over message sizes",
    .min_bytes = 8,
    .max_bytes = 1 << 20,
    .iterations = 1000,
    .heap_bytes = [](int world, std::uint64_t max_bytes) { return world * max_bytes + (1 << 20); },
};

}  // namespace

int main(int argc, char** argv) {
  symm::exit_with(symm::examples::run(argc, argv, kSpec, message_passing_example));
}
