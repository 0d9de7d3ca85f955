#pragma once
// The device buffers of a traced run (params.hpp TileTrace) and their reading into
// TileEvents on the host.
#include <cuda_runtime_api.h>

#include <vector>

#include "params.hpp"

namespace symm::ops::detail {

class TraceBuffers {
 public:
  TraceBuffers(int tiles, int blocks);  // blocks: of the grid (GEMM and comm)
  ~TraceBuffers();
  TraceBuffers(const TraceBuffers&) = delete;
  TraceBuffers& operator=(const TraceBuffers&) = delete;

  const TileTrace& device() const { return trace_; }
  // Zeroes every span before a traced run (stream-ordered), so nothing of an earlier
  // run can pass for this one.
  void reset(cudaStream_t stream);
  // The last run's timeline, relative to its barrier exit. `drains`: the warpgroups'
  // last stores were pushes still in flight (tma_push), so their drain is an event.
  std::vector<TileEvent> events(bool drains) const;

 private:
  int tiles_, blocks_;
  std::size_t bytes_ = 0;
  void* memory_ = nullptr;
  TileTrace trace_;
};

}  // namespace symm::ops::detail
