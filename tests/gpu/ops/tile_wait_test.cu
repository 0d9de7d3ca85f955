// A copier takes a tile only once every consumer warpgroup has published its part
// (push_tiles.cuh wait_for_tile). In the op the two halves of a tile are published within
// a microsecond of each other, so a copier that looked at one flag would rarely be caught
// there; here one half is published 50 us after the other, with its rows written between.
// And a timed-out wait's record (symm/device/wait_record.cuh) survives every waiter timing
// out at once.
#include <cuda/atomic>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gpu_presence.hpp"
#include "push_tiles.cuh"
#include "symm/host/cuda_check.hpp"

namespace symm::ops::detail {
namespace {

constexpr std::uint64_t kEpoch = 7;
constexpr int kRowsWritten = 42;

// Block 0 copies: once it has seen a half published, it waits for tile 0, then reads the
// late half's rows. Block 1 publishes: every half but `late` at once, then, 50 us later,
// writes the late half's rows and publishes it.
__global__ void publish_late_half(const __grid_constant__ PushWork w, int late, int* rows, int* read) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    // A copier that looks at the tile before any half is published waits for each flag in
    // turn; the case to test is the one where it finds some published and some not.
    cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device> early(w.tile_flags.flags[late == 0 ? 1 : 0]);
    const std::uint64_t start = cuda::ptx::get_sreg_globaltimer();
    while (early.load(cuda::memory_order_relaxed) < kEpoch)
      if (cuda::ptx::get_sreg_globaltimer() - start > 1'000'000'000) {
        *read = -1;  // never saw the first half: the publisher did not run
        return;
      }
    wait_for_tile(w, 0, kEpoch);
    *read = cuda::atomic_ref<int, cuda::thread_scope_device>(*rows).load(cuda::memory_order_relaxed);
    return;
  }
  const auto publish = [&](int half) {
    cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(w.tile_flags.flags[half])
        .store(kEpoch, cuda::memory_order_release);
  };
  for (int g = 0; g < gemm::kConsumers; ++g)
    if (g != late) publish(g);
  const std::uint64_t start = cuda::ptx::get_sreg_globaltimer();
  while (cuda::ptx::get_sreg_globaltimer() - start < 50'000) {
  }
  cuda::atomic_ref<int, cuda::thread_scope_device>(*rows).store(kRowsWritten, cuda::memory_order_relaxed);
  publish(late);
}

class LateHalf : public ::testing::TestWithParam<int> {};

TEST_P(LateHalf, ACopierWaitsForEveryHalfOfATile) {
  SYMM_REQUIRE_GPUS(1);
  std::uint64_t* flags = nullptr;
  int* ints = nullptr;  // rows, read
  WaitFailureRecord* record = nullptr;
  SYMM_CUDA_CHECK(cudaMalloc(&flags, gemm::kConsumers * sizeof *flags));
  SYMM_CUDA_CHECK(cudaMalloc(&ints, 2 * sizeof *ints));
  SYMM_CUDA_CHECK(cudaMallocManaged(&record, sizeof *record));
  SYMM_CUDA_CHECK(cudaMemset(flags, 0, gemm::kConsumers * sizeof *flags));
  SYMM_CUDA_CHECK(cudaMemset(ints, 0, 2 * sizeof *ints));
  SYMM_CUDA_CHECK(cudaMemset(record, 0, sizeof *record));
  PushWork w;
  w.tile_flags.flags = flags;
  w.wait = WaitSite{record, flags, 2'000'000'000, 0};  // 2 s: the test's wait is 50 us
  publish_late_half<<<2, 32>>>(w, GetParam(), ints, ints + 1);
  SYMM_CUDA_CHECK(cudaGetLastError());
  SYMM_CUDA_CHECK(cudaDeviceSynchronize());
  int read = 0;
  SYMM_CUDA_CHECK(cudaMemcpy(&read, ints + 1, sizeof read, cudaMemcpyDeviceToHost));
  ASSERT_NE(read, -1) << "the copier never saw the first half published (1 s)";
  EXPECT_EQ(read, kRowsWritten) << "the copier read the rows of half " << GetParam()
                                << " before that half was published";
  SYMM_CUDA_CHECK(cudaFree(flags));
  SYMM_CUDA_CHECK(cudaFree(ints));
  SYMM_CUDA_CHECK(cudaFree(record));
}

INSTANTIATE_TEST_SUITE_P(GemmAllScatter, LateHalf, ::testing::Range(0, gemm::kConsumers));

// Every thread of every block runs out of its wait budget at once (as every copier does when
// a peer never publishes): one fills the failure record, and the others must not end the
// grid before it is written, or the host has nothing to report.
__global__ void time_out_everywhere(const __grid_constant__ WaitSite site) {
  symm::device::record_wait_failure(site, nullptr, 41, 1, 3, 5'000'000);
}

// In the death test's own process: the trap ends its CUDA context.
[[noreturn]] void every_waiter_traps_then_report() {
  WaitFailureRecord* host = nullptr;
  if (cudaHostAlloc(&host, sizeof *host, cudaHostAllocMapped) != cudaSuccess) std::exit(3);
  std::memset(host, 0, sizeof *host);
  WaitFailureRecord* device = nullptr;
  if (cudaHostGetDevicePointer(&device, host, 0) != cudaSuccess) std::exit(4);
  time_out_everywhere<<<264, 256>>>(WaitSite{device, nullptr, 5'000'000, 0});
  const cudaError_t sync = cudaDeviceSynchronize();
  WaitFailureRecord r;
  std::memcpy(&r, host, sizeof r);
  std::fprintf(stderr, "synchronisation: %s; record state %u, block %d, tile %d, seen %llu, expected %llu\n",
               cudaGetErrorName(sync), r.claimed, r.block, r.tile, static_cast<unsigned long long>(r.seen),
               static_cast<unsigned long long>(r.expected));
  std::exit(sync != cudaSuccess && r.claimed == 2 ? 0 : 1);
}

TEST(GemmAllScatterWaitRecord, WaitersTimingOutTogetherLeaveOneWholeRecord) {
  SYMM_REQUIRE_GPUS(1);
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: CUDA does not survive fork
  EXPECT_EXIT(every_waiter_traps_then_report(), ::testing::ExitedWithCode(0),
              "record state 2, block [0-9]+, tile 41, seen 1, expected 3");
}

}  // namespace
}  // namespace symm::ops::detail
