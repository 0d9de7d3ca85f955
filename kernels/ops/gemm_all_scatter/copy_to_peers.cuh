#pragma once
// Copying finished parts of this rank's C shard into every other copy of C, with 16-byte
// vectors: the push of the Iris-style variants (comm blocks, scatter kernel, and the
// GEMM blocks themselves in fused_sequential).
#include <cuda/atomic>

#include <cstdint>

#include "params.hpp"
#include "symm/device/wait_record.cuh"
#include "symm/gemm/config.hpp"
#include "trace.cuh"

namespace symm::ops::detail {

// Rows [row0, row0 + rows) x columns [col0, col0 + cols) of the shard, read once from the
// local C (L2: __ldcg, nothing stale in L1) and stored to every target. `threads` threads
// share the work; thread t takes every threads-th vector, kBatch loads in flight at once.
__device__ inline void copy_region_to_peers(const ShardTargets& s, int row0, int rows, int col0,
                                            int cols, int t, int threads) {
  constexpr int kBatch = 4;
  const int row_vectors = cols * s.elem_bytes / 16;  // shard columns are whole 16-byte units
  const int total = rows * row_vectors;
  for (int first = t; first < total; first += threads * kBatch) {
    uint4 v[kBatch];
    std::int64_t offset[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int i = first + j * threads;
      offset[j] = i < total ? (row0 + i / row_vectors) * s.ldc_bytes +
                                  std::int64_t(col0) * s.elem_bytes + (i % row_vectors) * 16
                            : -1;
      if (offset[j] >= 0) v[j] = __ldcg(reinterpret_cast<const uint4*>(s.local + offset[j]));
    }
    for (int p = 0; p < s.peer_count; ++p) {
#pragma unroll
      for (int j = 0; j < kBatch; ++j)
        if (offset[j] >= 0) *reinterpret_cast<uint4*>(s.peers[p] + offset[j]) = v[j];
    }
  }
}

// The rows and columns of tile `tile` inside the shard (clipped at its edges).
struct TileRegion {
  int row0, rows, col0, cols;
};
__device__ inline TileRegion tile_region(const PushWork& w, int tile) {
  int tm = 0, tn = 0;
  w.sched.tile_coords(tile, tm, tn);
  const int row0 = tm * w.blk_m, col0 = tn * w.blk_n;
  const int rows = w.targets.m - row0 < w.blk_m ? w.targets.m - row0 : w.blk_m;
  const int cols = w.targets.n_shard - col0 < w.blk_n ? w.targets.n_shard - col0 : w.blk_n;
  return {row0, rows > 0 ? rows : 0, col0, cols > 0 ? cols : 0};
}

// The push role: tiles first, first + step, ... in the order the GEMM blocks finish
// them; each waited for (when the GEMM is still running), then copied to every target.
// Every thread of the block calls it.
__device__ inline void push_tiles(const PushWork& w, int first, int step) {
  const bool wait = w.tile_flags.flags != nullptr;
  const std::uint64_t epoch =
      wait ? cuda::atomic_ref<const std::uint64_t, cuda::thread_scope_device>(*w.tile_flags.epoch)
                     .load(cuda::memory_order_relaxed) + 1
           : 0;
  const int tiles = w.sched.num_tiles();
  for (int tile = first; tile < tiles; tile += step) {
    if (wait) {
      if (threadIdx.x == 0) {
        for (int g = 0; g < gemm::kConsumers; ++g)
          device::wait_at_least_recorded<cuda::thread_scope_device>(
              w.wait, &w.tile_flags.flags[tile * gemm::kConsumers + g], epoch, tile);
      }
      __syncthreads();  // thread 0 acquired the tile for the whole block
    }
    const std::uint64_t begin = w.trace.push ? trace_clock() : 0;
    const TileRegion r = tile_region(w, tile);
    copy_region_to_peers(w.targets, r.row0, r.rows, r.col0, r.cols, int(threadIdx.x), int(blockDim.x));
    if (w.trace.push) {
      __syncthreads();  // every thread's copies done
      if (threadIdx.x == 0) w.trace.push[tile * kTraceLanes] = {begin, trace_clock(), int(blockIdx.x), -1};
    }
  }
}

}  // namespace symm::ops::detail
