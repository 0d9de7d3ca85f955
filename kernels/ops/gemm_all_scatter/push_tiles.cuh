#pragma once
// The push role of wg_specialization's comm blocks and of the scatter kernel
// (producer_consumer, bulk_synchronous): one thread per block walks its tiles in the order
// the GEMM finishes them and moves each through shared memory with the TMA, in pieces of
// the tile's width (params.hpp PushMaps): a piece of the local C is loaded into a ring of
// slots and stored from there to every peer. Loads run up to half the ring ahead of the
// stores, so that a slot's stores have half a ring's time to read it before the next load
// lands there (loading up to a slot behind the stores ran no faster, on one H200).
#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

#include "params.hpp"
#include "symm/device/ptx/gemm_mbarrier.cuh"
#include "symm/device/wait_record.cuh"
#include "symm/gemm/config.hpp"
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

// A walk through the pieces of a block's tiles first, first + step, ...: the loads and the
// stores each have one. A tile's region and piece count are worked out once, on entering
// it: the copy is one thread's, and its instructions, not the TMA, bounded its rate when
// they were worked out per piece (ncu: ~400 instructions per piece, bench/results/all-scatter/2026-12-04-push-walk).
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

// Waits until at most `newer` of this thread's bulk store groups still read shared memory.
template <int N = kPushMaxSlots - 1>
__device__ inline void wait_store_reads(int newer) {
  if constexpr (N > 0) {
    if (newer < N) return wait_store_reads<N - 1>(newer);
  }
  cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<N>{});
}

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

// Tiles first, first + step, ... of the shard, each waited for (while the GEMM still
// runs) and copied to every target through `smem` (`smem_bytes`, enough for
// kPushMinSlots pieces: push_piece_rows chose the pieces for it). Every thread of the
// block calls it; thread 0 does the work.
__device__ inline void push_tiles(const PushWork& w, std::uint8_t* smem, int smem_bytes, int first,
                                  int step) {
  if (threadIdx.x != 0) return;
  const std::uint32_t misaligned = ptx::smem_addr(smem) % kPushSmemAlign;
  std::uint8_t* slots = smem + (misaligned ? kPushSmemAlign - misaligned : 0);
  const int piece_bytes = w.maps.piece_rows * w.blk_n * w.targets.elem_bytes;  // a whole box, also where clipped
  const int ring = push_slots(piece_bytes, smem_bytes), ahead = ring / 2;
  auto* bars = reinterpret_cast<std::uint64_t*>(slots + ring * piece_bytes);
  for (int i = 0; i < ring; ++i) cuda::ptx::mbarrier_init(&bars[i], 1);
  cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);

  const bool wait = w.tile_flags.flags != nullptr;
  const std::uint64_t epoch =
      wait ? cuda::atomic_ref<const std::uint64_t, cuda::thread_scope_device>(*w.tile_flags.epoch)
                     .load(cuda::memory_order_relaxed) + 1
           : 0;
  const int tiles = w.sched.num_tiles();
  PieceWalk load(w, first, step), store(w, first, step);
  int loaded = 0, stored = 0;         // pieces whose loads, and whose stores, have been issued
  int load_slot = 0, store_slot = 0;  // loaded % ring, stored % ring
  std::uint32_t store_phase = 0;      // (stored / ring) % 2
  int acquired_until = first;         // this block's tiles below it are published and acquired
  while (store.tile < tiles) {
    // Loads: up to `ahead` pieces ahead, as far as tiles are published. With nothing in
    // flight the next tile is waited for (bounded); otherwise only polled.
    while (load.tile < tiles && loaded - stored < ahead) {
      if (load.piece == 0 && wait && load.tile >= acquired_until) {
        int ready = tiles_published(w.tile_flags, load.tile, step, tiles, epoch);
        if (ready == 0 && loaded != stored) break;
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
      // The slot's last stores (a ring ago) must have read it.
      if (loaded >= ring) wait_store_reads(stored - 1 - (loaded - ring));
      std::int32_t coords[2];
      load.coords(w, coords);
      ptx::mbarrier_arrive_expect_tx(&bars[load_slot], std::uint32_t(piece_bytes));
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                      slots + load_slot * piece_bytes, &w.maps.local, coords, &bars[load_slot]);
      load.advance(w);
      ++loaded;
      load_slot = load_slot + 1 == ring ? 0 : load_slot + 1;
    }

    // Stores of the oldest piece in flight, to every target.
    std::uint64_t waited = 0;
    if (!ptx::mbarrier_wait_bounded(&bars[store_slot], store_phase, w.wait.budget_ns, waited))
      device::record_wait_failure(w.wait, nullptr, store.tile, 0, 1, waited);
    std::int32_t coords[2];
    store.coords(w, coords);
    for (int i = 0; i < w.targets.peer_count; ++i)
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, &w.maps.peers[i],
                                      coords, slots + store_slot * piece_bytes);
    cuda::ptx::cp_async_bulk_commit_group();  // one group per piece
    const int tile = store.tile;
    store.advance(w);
    ++stored;
    if (++store_slot == ring) {
      store_slot = 0;
      store_phase ^= 1u;
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

}  // namespace symm::ops::detail
