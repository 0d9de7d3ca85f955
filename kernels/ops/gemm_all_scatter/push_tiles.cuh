#pragma once
// The push role of wg_specialization's comm blocks and of the scatter kernel
// (producer_consumer, bulk_synchronous): one thread per block walks its tiles in the order
// the GEMM finishes them and moves each through shared memory with the TMA, in pieces of
// the tile's width (params.hpp PushMaps): a piece of the local C is loaded into a ring of
// slots and stored from there to every peer. Loads run up to half the ring ahead of the
// stores, so that a slot's stores have half a ring's time to read it before the next load
// lands there.
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

// A position in the sequence of pieces one block moves. The loads and the stores each
// walk the sequence with a cursor of their own.
struct PieceCursor {
  int tile, piece;
  __device__ void advance(int pieces_in_tile, int step) {
    if (++piece == pieces_in_tile) {
      tile += step;
      piece = 0;
    }
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

// Whether every consumer warpgroup has published `tile` in this launch (relaxed polls; the
// caller fences on success).
__device__ inline bool tile_published(const TileFlags& f, int tile, std::uint64_t epoch) {
  for (int g = 0; g < gemm::kConsumers; ++g)
    if (cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(f.flags[tile * gemm::kConsumers + g])
            .load(cuda::memory_order_relaxed) < epoch)
      return false;
  return true;
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
  const int piece_rows = w.maps.piece_rows;
  const int piece_bytes = piece_rows * w.blk_n * w.targets.elem_bytes;  // a whole box, also where clipped
  const int ring = push_slots(piece_bytes, smem_bytes), ahead = ring / 2;
  auto* bars = reinterpret_cast<std::uint64_t*>(slots + ring * piece_bytes);
  for (int i = 0; i < ring; ++i) cuda::ptx::mbarrier_init(&bars[i], 1);
  cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);

  const auto pieces_in = [&](const TileRegion& r) { return (r.rows + piece_rows - 1) / piece_rows; };
  const bool wait = w.tile_flags.flags != nullptr;
  const std::uint64_t epoch =
      wait ? cuda::atomic_ref<const std::uint64_t, cuda::thread_scope_device>(*w.tile_flags.epoch)
                     .load(cuda::memory_order_relaxed) + 1
           : 0;
  const int tiles = w.sched.num_tiles();
  PieceCursor load{first, 0}, store{first, 0};
  int loaded = 0, stored = 0;  // pieces whose loads, and whose stores, have been issued
  while (store.tile < tiles) {
    // Loads: up to `ahead` pieces ahead, as far as tiles are published. With nothing in
    // flight the next tile is waited for (bounded); otherwise only polled.
    while (load.tile < tiles && loaded - stored < ahead) {
      if (load.piece == 0 && wait) {
        if (loaded == stored) {
          for (int g = 0; g < gemm::kConsumers; ++g)
            device::wait_at_least_recorded<cuda::thread_scope_device>(
                w.wait, &w.tile_flags.flags[load.tile * gemm::kConsumers + g], epoch, load.tile);
        } else if (tile_published(w.tile_flags, load.tile, epoch)) {
          device::fence<cuda::memory_order_acquire, cuda::thread_scope_device>();
        } else {
          break;
        }
        cuda::ptx::fence_proxy_async(cuda::ptx::space_global);  // the acquire, for the TMA's reads
      }
      const TileRegion r = tile_region(w, load.tile);
      if (load.piece == 0 && w.trace.push) w.trace.push[load.tile * kTraceLanes].begin = trace_clock();
      const int slot = loaded % ring;
      const std::int32_t coords[2] = {r.col0, r.row0 + load.piece * piece_rows};
      // The slot's last stores (a ring ago) must have read it.
      if (loaded >= ring) wait_store_reads(stored - 1 - (loaded - ring));
      ptx::mbarrier_arrive_expect_tx(&bars[slot], std::uint32_t(piece_bytes));
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                      slots + slot * piece_bytes, &w.maps.local, coords, &bars[slot]);
      load.advance(pieces_in(r), step);
      ++loaded;
    }

    // Stores of the oldest piece in flight, to every target.
    const int slot = stored % ring;
    std::uint64_t waited = 0;
    if (!ptx::mbarrier_wait_bounded(&bars[slot], std::uint32_t(stored / ring) & 1u, w.wait.budget_ns,
                                    waited))
      device::record_wait_failure(w.wait, nullptr, store.tile, 0, 1, waited);
    const TileRegion r = tile_region(w, store.tile);
    const std::int32_t coords[2] = {r.col0, r.row0 + store.piece * piece_rows};
    for (int i = 0; i < w.targets.peer_count; ++i)
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, &w.maps.peers[i],
                                      coords, slots + slot * piece_bytes);
    cuda::ptx::cp_async_bulk_commit_group();  // one group per piece
    const int tile = store.tile;
    store.advance(pieces_in(r), step);
    ++stored;
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
