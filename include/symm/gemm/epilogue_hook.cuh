#pragma once
// The epilogue hook: a policy the persistent kernel calls after each consumer warpgroup
// has stored its part of a tile into C. Fused kernels use it to publish tiles (release a
// per-tile flag, or push the tile to peers); the default does nothing and costs nothing.
//
// When a hook hears that a warpgroup's part of a tile is complete in global memory, that
// is, once thread 0 of the warpgroup (the one that issued the TMA stores) has waited for
// them (cp.async.bulk.wait_group 0) and executed fence.proxy.async.global:
//   Notify::never            not at all.
//   Notify::at_once          the warpgroup meets at a named barrier after that wait, and
//                            every thread runs after_tile() before the next tile.
//   Notify::during_next_tile thread 0 alone runs publish(tile, warpgroup) while the
//                            warpgroup's next tile's wgmmas are in flight (mainloop.cuh
//                            `midway`), or before the warpgroup finishes, for its last: the
//                            wait for the stores then idles no tensor core.
// A flag release must come from thread 0, with the scope its readers need (system scope
// when another rank reads it).
#include <cstdint>

namespace symm::gemm {

enum class Notify { never, at_once, during_next_tile };

struct TileInfo {
  // The block's tile id: the scheduler's unit id (grouped order), times the cluster's
  // blocks plus the block's rank in it; without clusters the unit id (the flag index).
  int tile;
  int tile_m, tile_n;  // tile coordinates
  int row0, col0;      // first row and column of this warpgroup's part in C
  int rows, cols;      // its extent, clipped to M and N
  int warpgroup;       // consumer warpgroup 0 .. CONSUMERS - 1
  int thread;          // thread within the warpgroup, 0 .. 127
};

// Contract when Hook::kPushesChunks is true: push_chunk() runs on the thread that issued
// the local TMA store of each staged (64 rows, 128 bytes) piece, after that store and
// before its commit_group; it may issue more TMA stores of the same staging tile
// (coords: column, row in C; tail: the narrower last piece, see params.hpp c_tail). The
// epilogue reuses the staging tile only once every store of its group has read it, and
// waits for all of them to complete before the block exits.
//
// Hook::kWholeTiles: the hook's plans compute every tile in one unit (no split-K, stream-K
// or split tail), so its kernels carry no code for finishing split tiles (registers a
// fused epilogue may need). Otherwise a split tile reaches the epilogue, and the hook,
// once: in the unit that finishes it, holding the whole sum.
//
// Tracing points, called on every thread of a consumer warpgroup: worker_started() before
// its first tile, tile_stored() once its part of a tile is stored (TMA stores issued),
// worker_finished() after its last stores completed (drain). A hook that records tile
// timelines reads the clock there; the default does nothing.
struct NoEpilogueHook {
  static constexpr Notify kNotify = Notify::never;
  static constexpr bool kPushesChunks = false;
  static constexpr bool kWholeTiles = false;
  __device__ void push_chunk(bool, const std::int32_t (&)[2], const void*) const {}
  __device__ void worker_started(int, int, int) const {}
  __device__ void tile_stored(const TileInfo&) const {}
  __device__ void worker_finished(int, int, int) const {}
};

}  // namespace symm::gemm
