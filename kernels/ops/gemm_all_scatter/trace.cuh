#pragma once
// Recording tile timelines (--trace_tiles): the clock is read only when the run is traced
// (a null buffer otherwise), by one thread per warpgroup or block.
#include <cuda/ptx>

#include "params.hpp"
#include "symm/gemm/config.hpp"
#include "symm/gemm/epilogue_hook.cuh"

namespace symm::ops::detail {

__device__ inline std::uint64_t trace_clock() { return cuda::ptx::get_sreg_globaltimer(); }

// The GEMM warpgroups' tracing points (epilogue_hook.cuh), shared by every fused hook.
struct TracePoints {
  TileTrace trace;

  __device__ void worker_started(int block, int wg, int t) const {
    if (trace.workers && t == 0)
      trace.workers[block * kTraceLanes + wg] = {trace_clock(), 0, block, wg};
  }
  __device__ void tile_stored(const gemm::TileInfo& info) const {
    if (trace.compute && info.thread == 0)
      trace.compute[info.tile * kTraceLanes + info.warpgroup] = {0, trace_clock(), int(blockIdx.x),
                                                                       info.warpgroup};
  }
  __device__ void worker_finished(int block, int wg, int t) const {
    if (trace.workers && t == 0) trace.workers[block * kTraceLanes + wg].end = trace_clock();
  }
};

}  // namespace symm::ops::detail
