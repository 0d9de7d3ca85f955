#pragma once
// Copies rows of this rank's column block of C into the same place of every peer's C by
// the copy engines (cudaMemcpy2DAsync, device to device). Each peer has its own stream,
// so the copies to different peers run at once, on different engines and links.
//
//   push.push(c, row0, rows, stream);   // after the work on `stream` so far
//   push.join(stream);                  // `stream` waits for every push
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "symm/host/cuda_resources.hpp"
#include "shard_geometry.hpp"

namespace symm {
class Heap;
}

namespace symm::baselines {

class PeerPush {
 public:
  PeerPush(const Heap& heap, const ShardGeometry& g);

  // Throws symm::Error unless `c` lies on the heap (call before launching anything).
  void require_on_heap(const void* c) const;
  // Rows [row0, row0 + rows) of this rank's block of `c` (C on the heap) into every
  // peer's C, once the work enqueued on `stream` so far is done.
  void push(void* c, std::int64_t row0, std::int64_t rows, cudaStream_t stream);
  // `stream` waits for every push enqueued so far.
  void join(cudaStream_t stream);

  int peers() const { return static_cast<int>(peer_ranks_.size()); }

 private:
  const Heap& heap_;
  ShardGeometry g_;
  std::vector<int> peer_ranks_;
  std::vector<OwnedStream> streams_;  // one per peer
  std::vector<OwnedEvent> joins_;     // one per peer
  OwnedEvent fork_;
};

}  // namespace symm::baselines
