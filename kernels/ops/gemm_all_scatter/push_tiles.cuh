#pragma once
// The push role of wg_specialization's comm blocks and of the scatter kernel
// (producer_consumer, bulk_synchronous): a block walks its tiles in the order the GEMM
// finishes them and moves each through shared memory with the TMA, in pieces of the tile's
// width (params.hpp PushMaps). One thread loads pieces of the local C into a ring of slots
// as their tiles are published; a thread of another warp stores each landed piece to every
// peer and frees its slot once the stores have read it.
#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

#include "params.hpp"
#include "symm/device/ptx/gemm_mbarrier.cuh"
#include "symm/device/wait_record.cuh"
#include "symm/gemm/config.hpp"
#include "tile_flags.cuh"
#include "trace.cuh"

namespace symm::ops::detail {

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

// A walk through the pieces of a block's tiles first, first + step, ...: the loader and
// the storer each have one. A tile's region and piece count are worked out once, on
// entering it: a thread issues an instruction every ~6.5 cycles, and the instructions of
// the push, not the TMA, bounded its copy when they were worked out per piece (ncu).
struct PieceWalk {
  int tile, step, piece = 0, pieces = 0;
  TileRegion r{};
  __device__ PieceWalk(const PushWork& w, int first, int step_) : tile(first), step(step_) { enter(w); }
  __device__ void enter(const PushWork& w) {
    if (tile >= w.sched.num_tiles()) return;
    r = tile_region(w, tile);
    pieces = (r.rows + w.maps.piece_rows - 1) / w.maps.piece_rows;
  }
  __device__ void advance(const PushWork& w) {
    if (++piece < pieces) return;
    tile += step;
    piece = 0;
    enter(w);
  }
  __device__ void coords(const PushWork& w, std::int32_t (&c)[2]) const {
    c[0] = r.col0;
    c[1] = r.row0 + piece * w.maps.piece_rows;
  }
};

// How many of the tiles tile, tile + step, ... (at most kPushAcquireBatch, below `tiles`)
// every consumer warpgroup has published in this launch, counted from the first: relaxed
// polls, all issued before any is compared, so that they cost one round trip. The
// caller's one acquire fence then covers every tile counted.
inline constexpr int kPushAcquireBatch = 4;
__device__ inline int tiles_published(const TileFlags& f, int tile, int step, int tiles, std::uint64_t epoch) {
  std::uint64_t seen[kPushAcquireBatch][gemm::kConsumers];
#pragma unroll
  for (int i = 0; i < kPushAcquireBatch; ++i)
#pragma unroll
    for (int g = 0; g < gemm::kConsumers; ++g)
      seen[i][g] = tile + i * step < tiles
                       ? cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(
                             f.flags[(tile + i * step) * gemm::kConsumers + g])
                             .load(cuda::memory_order_relaxed)
                       : 0;
  int n = 0;
#pragma unroll
  for (int i = 0; i < kPushAcquireBatch; ++i) {
    bool all = n == i;
#pragma unroll
    for (int g = 0; g < gemm::kConsumers; ++g) all = all && seen[i][g] >= epoch;
    n += all ? 1 : 0;
  }
  return n;
}

// The ring of shared-memory slots between the two threads: `full` completes when a
// slot's load has landed, `empty` when the stores from it have read it. A slot's k-th
// use waits for phase k of full (the storer) and k - 1 of empty (the loader).
struct PushRing {
  std::uint8_t* slots;
  std::uint64_t* full;
  std::uint64_t* empty;
  int size, piece_bytes;
  // Budget of a slot wait: twice the flag waits', so that a GEMM that never publishes a
  // tile is reported by the loader's flag wait, not as a slot that never filled.
  std::uint64_t budget_ns;
};

// The loader: waits for each tile's flags (bounded), then loads its pieces into free slots.
__device__ inline void load_pieces(const PushWork& w, const PushRing& ring, int first, int step) {
  const bool wait = w.tile_flags.flags != nullptr;
  const std::uint64_t epoch = wait ? this_launch_epoch(w.tile_flags) : 0;
  const int tiles = w.sched.num_tiles();
  int acquired_until = first;  // this block's tiles below it are published and acquired
  int slot = 0;
  std::uint32_t empty_phase = 0;  // of the next wait for `slot`, from the second lap on
  bool lapped = false;
  for (PieceWalk load(w, first, step); load.tile < tiles; load.advance(w)) {
    if (load.piece == 0 && wait && load.tile >= acquired_until) {
      int ready = tiles_published(w.tile_flags, load.tile, step, tiles, epoch);
      if (ready == 0) {
        for (int g = 0; g < gemm::kConsumers; ++g)
          device::wait_at_least_recorded<cuda::thread_scope_device>(
              w.wait, &w.tile_flags.flags[load.tile * gemm::kConsumers + g], epoch, load.tile);
        ready = 1;
      } else {
        device::fence<cuda::memory_order_acquire, cuda::thread_scope_device>();
      }
      acquired_until = load.tile + ready * step;
      cuda::ptx::fence_proxy_async(cuda::ptx::space_global);  // the acquire, for the TMA's reads
    }
    if (load.piece == 0 && w.trace.push) w.trace.push[load.tile * kTraceLanes].begin = trace_clock();
    std::uint64_t waited = 0;
    if (lapped && !ptx::mbarrier_wait_bounded(&ring.empty[slot], empty_phase, ring.budget_ns, waited))
      device::record_wait_failure(w.wait, nullptr, load.tile, 0, 1, waited);
    std::int32_t coords[2];
    load.coords(w, coords);
    ptx::mbarrier_arrive_expect_tx(&ring.full[slot], std::uint32_t(ring.piece_bytes));
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                    ring.slots + slot * ring.piece_bytes, &w.maps.local, coords, &ring.full[slot]);
    if (++slot == ring.size) {
      slot = 0;
      empty_phase ^= lapped ? 1u : 0u;
      lapped = true;
    }
  }
}

// The storer: stores each landed piece to every target and frees the slot of the piece
// before it once those stores have read it (the newest store group may still read).
__device__ inline void store_pieces(const PushWork& w, const PushRing& ring, int first, int step) {
  const int tiles = w.sched.num_tiles();
  int slot = 0, previous = -1;
  std::uint32_t full_phase = 0;
  for (PieceWalk store(w, first, step); store.tile < tiles;) {
    std::uint64_t waited = 0;
    if (!ptx::mbarrier_wait_bounded(&ring.full[slot], full_phase, ring.budget_ns, waited))
      device::record_wait_failure(w.wait, nullptr, store.tile, 0, 1, waited);
    std::int32_t coords[2];
    store.coords(w, coords);
    for (int i = 0; i < w.targets.peer_count; ++i)
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, &w.maps.peers[i],
                                      coords, ring.slots + slot * ring.piece_bytes);
    cuda::ptx::cp_async_bulk_commit_group();  // one group per piece
    if (previous >= 0) {
      cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<1>{});
      ptx::mbarrier_arrive(&ring.empty[previous]);
    }
    previous = slot;
    const int tile = store.tile;
    store.advance(w);
    if (++slot == ring.size) {
      slot = 0;
      full_phase ^= 1u;
    }
    if (w.trace.push && store.tile != tile) {
      TraceSpan& span = w.trace.push[tile * kTraceLanes];
      span.end = trace_clock();
      span.block = int(blockIdx.x);
      span.lane = -1;
    }
  }
  // The peers read C after this grid completes (the stream barrier): the stores must have
  // landed, and be ordered before the generic proxy's release that follows.
  cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
  cuda::ptx::fence_proxy_async(cuda::ptx::space_global);
}

// Tiles first, first + step, ... of the shard, each waited for (while the GEMM still
// runs) and copied to every target through `smem` (`smem_bytes`, enough for
// kPushMinSlots pieces: push_piece_rows chose the pieces for it). Every thread of the
// block calls it (at least kPushThreads); thread 0 loads, the first thread of the second
// warp stores: one thread doing both issued ~270 instructions per piece at one per 6.5
// cycles, and that, not the TMA, bounded its copy (ncu, bench/results/all-scatter/2026-12-04-push-walk).
inline constexpr int kPushThreads = 64;
__device__ inline void push_tiles(const PushWork& w, std::uint8_t* smem, int smem_bytes, int first,
                                  int step) {
  const std::uint32_t misaligned = ptx::smem_addr(smem) % kPushSmemAlign;
  PushRing ring;
  ring.slots = smem + (misaligned ? kPushSmemAlign - misaligned : 0);
  ring.piece_bytes = w.maps.piece_rows * w.blk_n * w.targets.elem_bytes;  // a whole box, also where clipped
  ring.size = push_slots(ring.piece_bytes, smem_bytes);
  ring.full = reinterpret_cast<std::uint64_t*>(ring.slots + ring.size * ring.piece_bytes);
  ring.empty = ring.full + ring.size;
  ring.budget_ns = 2 * w.wait.budget_ns;
  if (threadIdx.x == 0) {
    for (int i = 0; i < 2 * ring.size; ++i) cuda::ptx::mbarrier_init(&ring.full[i], 1);  // full, then empty
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) load_pieces(w, ring, first, step);
  if (threadIdx.x == 32) store_pieces(w, ring, first, step);
}

}  // namespace symm::ops::detail
