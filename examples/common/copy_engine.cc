#include "copy_engine.hpp"

#include "symm/host/cuda_check.hpp"

namespace symm::examples {

CopyEngines::CopyEngines(Session& session) : session_(session) {
  const int world = session.runtime().world();
  streams_.resize(world);
  done_.resize(world);
  for (int r = 0; r < world; ++r) {
    SYMM_CUDA_CHECK(cudaStreamCreateWithFlags(&streams_[r], cudaStreamNonBlocking));
    SYMM_CUDA_CHECK(cudaEventCreateWithFlags(&done_[r], cudaEventDisableTiming));
  }
  SYMM_CUDA_CHECK(cudaEventCreateWithFlags(&start_, cudaEventDisableTiming));
}

CopyEngines::~CopyEngines() {
  for (std::size_t r = 0; r < streams_.size(); ++r) {
    warn_on_cuda_error(cudaEventDestroy(done_[r]), "cudaEventDestroy(copy engine)");
    warn_on_cuda_error(cudaStreamDestroy(streams_[r]), "cudaStreamDestroy(copy engine)");
  }
  warn_on_cuda_error(cudaEventDestroy(start_), "cudaEventDestroy(copy engine start)");
}

void CopyEngines::put(void* dst_local, const void* src, std::uint64_t bytes, int target) {
  Runtime& rt = session_.runtime();
  SYMM_CUDA_CHECK(cudaMemcpyAsync(rt.heap().translate(dst_local, target), src, bytes,
                                  cudaMemcpyDefault, session_.stream()));
}

void CopyEngines::put_to_all(void* dst_local, const void* src, std::uint64_t bytes) {
  Runtime& rt = session_.runtime();
  SYMM_CUDA_CHECK(cudaEventRecord(start_, session_.stream()));
  for (int peer = 0; peer < rt.world(); ++peer) {
    if (peer == rt.rank()) continue;
    SYMM_CUDA_CHECK(cudaStreamWaitEvent(streams_[peer], start_));
    SYMM_CUDA_CHECK(cudaMemcpyAsync(rt.heap().translate(dst_local, peer), src, bytes,
                                    cudaMemcpyDefault, streams_[peer]));
    SYMM_CUDA_CHECK(cudaEventRecord(done_[peer], streams_[peer]));
    SYMM_CUDA_CHECK(cudaStreamWaitEvent(session_.stream(), done_[peer]));
  }
}

}  // namespace symm::examples
