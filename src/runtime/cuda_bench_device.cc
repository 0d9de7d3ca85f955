// do_bench's GPU side: CUDA events around the timed function, an L2 flush by writing
// 256 MiB (larger than any GPU's L2) on the same stream.
#include <cuda_runtime_api.h>

#include "symm/host/bench.hpp"
#include "symm/host/cuda_check.hpp"

namespace symm {

CudaBenchDevice::CudaBenchDevice(cudaStream_t stream) : stream_(stream) {
  try {
    SYMM_CUDA_CHECK(cudaEventCreate(&start_));
    SYMM_CUDA_CHECK(cudaEventCreate(&stop_));
  } catch (...) {
    release();
    throw;
  }
}

CudaBenchDevice::~CudaBenchDevice() { release(); }

void CudaBenchDevice::release() noexcept {
  if (stop_ != nullptr) warn_on_cuda_error(cudaEventDestroy(stop_), "cudaEventDestroy");
  if (start_ != nullptr) warn_on_cuda_error(cudaEventDestroy(start_), "cudaEventDestroy");
  if (flush_buffer_ != nullptr) {
    warn_on_cuda_error(cudaFree(flush_buffer_), "cudaFree(L2 flush buffer)");
  }
  stop_ = start_ = nullptr;
  flush_buffer_ = nullptr;
}

void CudaBenchDevice::flush_l2() {
  // Allocated at the first flush: timers that never flush (tuning) cost no memory.
  if (flush_buffer_ == nullptr)
    check_cuda(cudaMalloc(&flush_buffer_, kL2FlushBytes), "cudaMalloc(256 MiB L2 flush buffer)");
  check_cuda(cudaMemsetAsync(flush_buffer_, 0, kL2FlushBytes, stream_),
             "cudaMemsetAsync(L2 flush buffer)");
}

double CudaBenchDevice::time_ms(const std::function<void()>& fn) {
  SYMM_CUDA_CHECK(cudaEventRecord(start_, stream_));
  fn();
  SYMM_CUDA_CHECK(cudaEventRecord(stop_, stream_));
  check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize (end of the timed function)",
             "the timed function's kernels failed; run it alone to see the error");
  float elapsed = 0;
  SYMM_CUDA_CHECK(cudaEventElapsedTime(&elapsed, start_, stop_));
  return elapsed;
}

}  // namespace symm
