#include "copy_engine.hpp"

#include "symm/host/cuda_check.hpp"

namespace symm::examples {

CopyEngines::CopyEngines(Session& session) : session_(session) {
  const int world = session.runtime().world();
  streams_.reserve(world);
  done_.reserve(world);
  for (int r = 0; r < world; ++r) {
    streams_.emplace_back();
    done_.emplace_back();
  }
}

CopyEngines::~CopyEngines() = default;

void CopyEngines::put(void* dst_local, const void* src, std::uint64_t bytes, int target) {
  Runtime& rt = session_.runtime();
  SYMM_CUDA_CHECK(cudaMemcpyAsync(rt.heap().translate(dst_local, target, bytes), src, bytes,
                                  cudaMemcpyDefault, session_.stream()));
}

void CopyEngines::put_to_all(void* dst_local, const void* src, std::uint64_t bytes) {
  Runtime& rt = session_.runtime();
  SYMM_CUDA_CHECK(cudaEventRecord(start_.get(), session_.stream()));
  for (int peer = 0; peer < rt.world(); ++peer) {
    if (peer == rt.rank()) continue;
    const cudaStream_t copy = streams_[peer].get();
    SYMM_CUDA_CHECK(cudaStreamWaitEvent(copy, start_.get()));
    SYMM_CUDA_CHECK(
        cudaMemcpyAsync(rt.heap().translate(dst_local, peer, bytes), src, bytes, cudaMemcpyDefault, copy));
    order_after(session_.stream(), copy, done_[peer].get());
  }
}

}  // namespace symm::examples
