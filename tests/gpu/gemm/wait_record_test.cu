// A GEMM wait that outlasts its budget (wait_record.cuh, called by the producer's stage
// waits and the split-K / stream-K waits) leaves a record that the host reads after the
// trap has ended the kernel.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gemm_test_util.hpp"
#include "symm/gemm/wait_record.cuh"

namespace symm::gemm::test {
namespace {

__global__ void time_out_in_block(GemmWaitRecord* record, int block) {
  if (int(blockIdx.x) == block && threadIdx.x == 0)
    wait_failed(record, GemmWaitSite::partial_sums, -1, 41, 1, 3, 5'000'000);
}

// Every thread of every block times out at once: one of them fills the record, and the
// others must not end the grid before it is written.
__global__ void time_out_everywhere(GemmWaitRecord* record) {
  wait_failed(record, GemmWaitSite::partial_sums, -1, 41, 1, 3, 5'000'000);
}

// In the death test's own process: the trap ends its CUDA context. `everywhere`: every
// thread times out, else block 5's first.
[[noreturn]] void trap_then_report(bool everywhere) {
  GemmWaitRecord* host = nullptr;
  if (cudaHostAlloc(&host, sizeof *host, cudaHostAllocMapped) != cudaSuccess) std::exit(3);
  std::memset(host, 0, sizeof *host);
  GemmWaitRecord* device = nullptr;
  if (cudaHostGetDevicePointer(&device, host, 0) != cudaSuccess) std::exit(4);
  if (everywhere)
    time_out_everywhere<<<264, 256>>>(device);
  else
    time_out_in_block<<<8, 32>>>(device, 5);
  const cudaError_t sync = cudaDeviceSynchronize();
  GemmWaitRecord record;
  std::memcpy(&record, host, sizeof record);
  std::fprintf(stderr, "synchronisation: %s\n%s\n", cudaGetErrorName(sync), describe(record).c_str());
  std::exit(sync != cudaSuccess && (everywhere || record.block == 5) ? 0 : 1);
}

TEST(GemmWaitRecord, ATrappedWaitLeavesWhatItWaitedForToTheHost) {
  SYMM_REQUIRE_GPUS(1);
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: CUDA does not survive fork
  EXPECT_EXIT(trap_then_report(false), ::testing::ExitedWithCode(0),
              "block 5 timed out after 5 ms .*partial sums of tile 41: 1 of 3 arrived");
}

TEST(GemmWaitRecord, WaitersTimingOutTogetherLeaveOneWholeRecord) {
  SYMM_REQUIRE_GPUS(1);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(trap_then_report(true), ::testing::ExitedWithCode(0),
              "block [0-9]+ timed out after 5 ms .*partial sums of tile 41: 1 of 3 arrived");
}

}  // namespace
}  // namespace symm::gemm::test
