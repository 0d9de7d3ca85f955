// Heap exchange: every rank writes a pattern into every peer's heap through the base
// table, then every rank reads its own heap back bit for bit. For VMM, legacy IPC and
// auto; 2 ranks, and 4 ranks (on two GPUs: peers on the same GPU and on the other).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpu_ranks.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/runtime.hpp"
#include "test_kernels.hpp"

namespace symm::testing {
namespace {

// 1 Mi words per writer: each slot spans several 2 MiB mapping granules.
constexpr std::size_t kWordsPerWriter = std::size_t{1} << 20;

void exchange_and_verify(Team& team, HeapTransport requested) {
  RuntimeOptions options;
  options.heap_size = std::size_t{64} << 20;
  options.transport = requested;
  Runtime rt(team, options);
  Heap& heap = rt.heap();
  if (requested != HeapTransport::automatic) {
    require(heap.transport() == requested,
            "heap transport is " + std::string(transport_name(heap.transport())));
  }
  const int world = rt.world();
  require(heap.bases().size() == static_cast<std::size_t>(world), "one base per rank");
  for (int r = 0; r < world; ++r) {
    require(heap.bases()[r] % 256 == 0, "heap bases are at least 256-byte aligned");
  }
  std::vector<std::uintptr_t> device_table(world);
  SYMM_CUDA_CHECK(cudaMemcpy(device_table.data(), heap.device_bases(),
                             world * sizeof(std::uintptr_t), cudaMemcpyDeviceToHost));
  require(std::equal(device_table.begin(), device_table.end(), heap.bases().begin()),
          "the device base table matches the host's");

  cudaStream_t stream = nullptr;
  SYMM_CUDA_CHECK(cudaStreamCreate(&stream));
  auto* slots = static_cast<std::uint32_t*>(heap.allocate(world * kWordsPerWriter * 4));
  write_pattern_to_every_peer(rt, slots, kWordsPerWriter, stream);
  rt.barrier(stream);  // every rank's writes into my heap are done

  std::vector<std::uint32_t> mine(world * kWordsPerWriter);
  SYMM_CUDA_CHECK(cudaMemcpyAsync(mine.data(), slots, mine.size() * 4, cudaMemcpyDeviceToHost,
                                  stream));
  SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (int writer = 0; writer < world; ++writer) {
    for (std::size_t i = 0; i < kWordsPerWriter; ++i) {
      const std::uint32_t expected = pattern(writer, rt.rank(), i);
      const std::uint32_t seen = mine[writer * kWordsPerWriter + i];
      require(seen == expected, "word " + std::to_string(i) + " from rank " +
                                    std::to_string(writer) + " is " + std::to_string(seen) +
                                    ", expected " + std::to_string(expected));
    }
  }
  rt.barrier(stream);  // nobody releases the heap while a peer still reads it
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(SYMM_SUITE(HeapExchange), TwoRanksOverVmm) {
  SYMM_REQUIRE_GPUS(SYMM_TEST_GPUS);
  EXPECT_EQ(run_on_ranks(2, [](Team& team) { exchange_and_verify(team, HeapTransport::vmm); }), 0);
}

TEST(SYMM_SUITE(HeapExchange), TwoRanksOverIpc) {
  SYMM_REQUIRE_GPUS(SYMM_TEST_GPUS);
  EXPECT_EQ(run_on_ranks(2, [](Team& team) { exchange_and_verify(team, HeapTransport::ipc); }), 0);
}

TEST(SYMM_SUITE(HeapExchange), TwoRanksOverAuto) {
  SYMM_REQUIRE_GPUS(SYMM_TEST_GPUS);
  EXPECT_EQ(run_on_ranks(2, [](Team& team) {
              exchange_and_verify(team, HeapTransport::automatic);
            }),
            0);
}

TEST(SYMM_SUITE(HeapExchange), FourRanksOverVmm) {
  SYMM_REQUIRE_GPUS(SYMM_TEST_GPUS);
  EXPECT_EQ(run_on_ranks(4, [](Team& team) { exchange_and_verify(team, HeapTransport::vmm); }), 0);
}

TEST(SYMM_SUITE(HeapExchange), FourRanksOverIpc) {
  SYMM_REQUIRE_GPUS(SYMM_TEST_GPUS);
  EXPECT_EQ(run_on_ranks(4, [](Team& team) { exchange_and_verify(team, HeapTransport::ipc); }), 0);
}

}  // namespace
}  // namespace symm::testing
