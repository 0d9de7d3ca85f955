#include "peer_push.hpp"

#include <fmt/format.h>

#include "symm/common/error.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/heap.hpp"

namespace symm::baselines {

PeerPush::PeerPush(const Heap& heap, const ShardGeometry& g) : heap_(heap), g_(g) {
  for (int peer = 0; peer < g.world; ++peer) {
    if (peer == g.rank) continue;
    peer_ranks_.push_back(peer);
    streams_.emplace_back();
    joins_.emplace_back();
  }
}

void PeerPush::require_on_heap(const void* c) const {
  // Its last byte too: a C running past the heap's end would be written past a peer's.
  const std::size_t c_bytes = static_cast<std::size_t>(g_.m) * g_.c_pitch();
  if (!heap_.contains(c, c_bytes))
    throw Error(
        fmt::format("{}GEMM + all-scatter baseline: C at {} ({} bytes) does not lie on the symmetric heap; "
                    "allocate C with symm::Heap (e.g. symm::empty) so peers can reach it",
                    rank_prefix(), c, c_bytes));
}

void PeerPush::push(void* c, std::int64_t row0, std::int64_t rows, cudaStream_t stream) {
  if (peer_ranks_.empty()) return;
  const std::size_t offset = g_.c_offset(g_.rank, row0);
  const void* source = byte_offset(c, offset);
  SYMM_CUDA_CHECK(cudaEventRecord(fork_.get(), stream));
  for (std::size_t i = 0; i < peer_ranks_.size(); ++i) {
    void* destination = byte_offset(heap_.translate(c, peer_ranks_[i]), offset);
    SYMM_CUDA_CHECK(cudaStreamWaitEvent(streams_[i].get(), fork_.get(), 0));
    check_cuda(cudaMemcpy2DAsync(destination, g_.c_pitch(), source, g_.c_pitch(), g_.shard_width(),
                                 static_cast<std::size_t>(rows), cudaMemcpyDeviceToDevice,
                                 streams_[i].get()),
               "cudaMemcpy2DAsync(row block to a peer's C)");
  }
}

void PeerPush::join(cudaStream_t stream) {
  for (std::size_t i = 0; i < streams_.size(); ++i)
    order_after(stream, streams_[i].get(), joins_[i].get());
}

}  // namespace symm::baselines
