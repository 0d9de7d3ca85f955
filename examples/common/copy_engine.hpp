#pragma once
// The copy-engine baseline of the store examples (01, 03): the same bytes between the
// same ranks, copied by the copy engines in the same run. The copy is cudaMemcpyAsync
// onto the peer heap's mapping in this process (a peer-to-peer copy over NVLink between
// two GPUs): cudaMemcpyPeerAsync refuses addresses imported through the VMM API
// (cudaErrorInvalidValue, seen on H200).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "example.hpp"
#include "symm/host/cuda_resources.hpp"

namespace symm::examples {

class CopyEngines {
 public:
  explicit CopyEngines(Session& session);
  ~CopyEngines();
  CopyEngines(const CopyEngines&) = delete;
  CopyEngines& operator=(const CopyEngines&) = delete;

  // Enqueues on the session's stream: src (this rank) -> rank `target`'s copy of
  // dst_local, one way.
  void put(void* dst_local, const void* src, std::uint64_t bytes, int target);

  // Enqueues on the session's stream: src -> every other rank's copy of dst_local, all
  // at once (a stream per peer, forked from and joined back into the session's stream).
  void put_to_all(void* dst_local, const void* src, std::uint64_t bytes);

 private:
  Session& session_;
  std::vector<OwnedStream> streams_;  // one per rank
  std::vector<OwnedEvent> done_;      // one per rank
  OwnedEvent start_;
};

}  // namespace symm::examples
