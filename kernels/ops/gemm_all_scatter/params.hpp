#pragma once
// What the GEMM + all-scatter kernels receive besides the GEMM's own WgmmaParams. Plain
// structs shared by the host glue (gemm_all_scatter.cc) and the kernels.
#include <cuda.h>

#include <cstdint>

#include "symm/common/wait_failure.hpp"
#include "symm/gemm/config.hpp"
#include "symm/gemm/scheduler.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::ops::detail {

inline constexpr int kMaxPeers = kMaxWorld - 1;

// This rank's shard of C (M x n_shard, row stride ldc elements): where it is computed,
// and every other copy of C it must reach (a peer's C seen from here, or a loopback
// buffer), each at the same shard offset.
struct ShardTargets {
  const std::uint8_t* local = nullptr;
  std::uint8_t* peers[kMaxPeers] = {};
  int peer_count = 0;
  int m = 0, n_shard = 0;
  std::int64_t ldc_bytes = 0;
  int elem_bytes = 2;
};

// Per-tile flags of the kernels whose tiles are pushed by other blocks: one flag per
// (tile, consumer warpgroup), set to the launch's epoch once that warpgroup's part of
// the tile is in the local C. Device scope: the readers are blocks on this GPU.
struct TileFlags {
  std::uint64_t* flags = nullptr;         // tiles x kConsumers, device memory
  const std::uint64_t* epoch = nullptr;   // launches completed (StreamBarrier); this one is +1
};

// One span of a tile timeline (global timer, ns), written by the device when tracing.
struct TraceSpan {
  std::uint64_t begin, end;
  std::int32_t block, lane;  // lane: consumer warpgroup, or -1 for a comm block
};

// Where a traced run records its tile timeline (device memory); null pointers: no trace.
// A slot per consumer warpgroup of a tile or block, for any configuration: kTraceLanes.
inline constexpr int kTraceLanes = gemm::kMaxConsumers;
struct TileTrace {
  TraceSpan* compute = nullptr;  // [tiles x kTraceLanes]: end = stores issued (begin: host)
  TraceSpan* push = nullptr;     // [tiles x kTraceLanes]: copies to peers (comm: lane 0 slot)
  TraceSpan* workers = nullptr;  // [blocks x kTraceLanes]: first tile begun, last store done
  std::uint64_t* barrier_exit = nullptr;  // when the run's stream barrier let this rank go
};

// The blocks that push tiles (comm role, scatter kernel): which tiles, and whether they
// wait for flags (not after a finished GEMM).
struct PushWork {
  ShardTargets targets;
  gemm::TileScheduler sched;
  int blk_m = 0, blk_n = 0;
  TileFlags tile_flags;      // flags == nullptr: the tiles are already complete
  WaitSite wait;
  TileTrace trace;           // also read by the GEMM blocks' hooks
};

// The peers' copies of C for the tma_push epilogue: one tensor map per peer (and one for
// the narrower last piece of each tile, see gemm/params.hpp c_tail).
struct PeerMaps {
  CUtensorMap c[kMaxPeers];
  CUtensorMap c_tail[kMaxPeers];
  int count = 0;
};

}  // namespace symm::ops::detail
