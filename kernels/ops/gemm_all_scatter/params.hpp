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
  std::int32_t block, lane;  // lane: consumer warpgroup, or -1 for a copier (block: its id)
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

// The push role (the copiers, below) moves tiles through shared memory with the
// TMA in pieces: a tile's whole width by piece_rows rows, unswizzled, at most
// kPushPieceBytes, in a ring of slots of the block's shared memory. One TMA copy costs about
// 0.2 us however small, so pieces are large: a block moved 48 GB/s with 16-64 KB pieces,
// 28 with 8 KB, 22 with 16-byte vectors through registers (one H200, one to 32 blocks,
// bench/results/all-scatter/2026-12-04-tma-pieces).
inline constexpr int kPushPieceBytes = 32 * 1024;
inline constexpr int kPushMinSlots = 4, kPushMaxSlots = 8;
inline constexpr int kPushSmemAlign = 128;  // TMA boxes without swizzle: 128-byte aligned
// Per slot besides its piece: two mbarriers (full, empty) and the piece's ticket (where it
// goes: push_tiles.cuh PieceTicket).
inline constexpr int kPushSlotExtraBytes = 2 * 8 + 16;
// Shared memory for `slots` slots of `piece_bytes`: alignment slack, the slots, their
// barriers and tickets; and how many slots `smem_bytes` hold.
constexpr int push_smem_bytes(int slots, int piece_bytes) {
  return kPushSmemAlign + slots * (piece_bytes + kPushSlotExtraBytes);
}
constexpr int push_slots(int piece_bytes, int smem_bytes) {
  const int slots = (smem_bytes - kPushSmemAlign) / (piece_bytes + kPushSlotExtraBytes);
  return slots < kPushMaxSlots ? slots : kPushMaxSlots;
}
// Rows per piece of a tile blk_m x blk_n (elem_bytes each) staged through smem_bytes: the
// most rows that divide blk_m, are a multiple of 8 (pieces stay 128-byte multiples: a tile
// row is a 16-byte multiple), fit kPushPieceBytes and leave room for kPushMinSlots pieces.
// A piece is a TMA box of that many rows: one that straddled the tile's last row would
// load rows of the next tile before they are published and store them over that tile's
// copy at the peers. 0: none fits smem_bytes.
constexpr int push_piece_rows(int blk_m, int blk_n, int elem_bytes, int smem_bytes) {
  const int row_bytes = blk_n * elem_bytes;
  for (int rows = blk_m / 8 * 8; rows >= 8; rows -= 8)
    if (blk_m % rows == 0 && rows * row_bytes <= kPushPieceBytes &&
        push_slots(rows * row_bytes, smem_bytes) >= kPushMinSlots)
      return rows;
  return 0;
}

// This rank's shard of C and every other copy of it in the push role's pieces (boxes of
// piece_rows x blk_n), for TMA loads from the one and stores to the others.
struct PushMaps {
  CUtensorMap local;
  CUtensorMap peers[kMaxPeers];
  int piece_rows = 0;
};

// The blocks that push tiles (the copiers: comm blocks, scatter blocks, and GEMM blocks
// once their own tiles are done) take them one at a time, in the GEMM's order, from one
// counter: a copier with nothing left to compute joins the push wherever it stands, so the
// last tiles are not left to the few comm blocks. Each copier's last claim finds the
// tiles gone; the last copier to retire sets both counters back to zero for the next
// launch (the kernel boundary orders it before that launch's claims).
struct TileClaims {
  unsigned* next = nullptr;     // device memory, zero before a launch: claims taken
  unsigned* retired = nullptr;  // copiers that have claimed their last tile
  int copiers = 0;              // every block that runs push_tiles in a launch
};

// The copiers' work: which tiles, and whether they wait for flags (not after a finished
// GEMM).
struct PushWork {
  ShardTargets targets;
  PushMaps maps;
  gemm::TileScheduler sched;
  int blk_m = 0, blk_n = 0;
  TileClaims claims;
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
