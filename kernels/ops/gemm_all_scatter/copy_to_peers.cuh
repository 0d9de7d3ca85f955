#pragma once
// Copying finished parts of this rank's C shard into every other copy of C, with 16-byte
// vectors through registers: fused_sequential's push, by the GEMM warpgroup itself (its
// shared memory is the GEMM's; the copiers of the flag variants stage pieces of
// tiles with the TMA instead, push_tiles.cuh).
#include <cstdint>

#include "params.hpp"

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

}  // namespace symm::ops::detail
