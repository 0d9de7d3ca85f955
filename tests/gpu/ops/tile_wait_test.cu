// A copier takes a tile only once every consumer warpgroup has published its part
// (push_tiles.cuh wait_for_tile). In the op the two halves of a tile are published within
// a microsecond of each other, so a copier that looked at one flag would rarely be caught
// there; here one half is published 50 us after the other, with its rows written between.
#include <cuda/atomic>
#include <cuda_runtime_api.h>

#include <cstdint>

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

}  // namespace
}  // namespace symm::ops::detail
