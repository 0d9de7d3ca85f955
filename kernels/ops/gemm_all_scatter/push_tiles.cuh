#pragma once
// The push role of wg_specialization's comm blocks and of the scatter kernel
// (producer_consumer, bulk_synchronous): one warp per block walks its tiles in the order
// the GEMM finishes them and moves each through shared memory with TMA bulk copies, one
// per row: rows of the local C are loaded from L2 into a ring of staging slots and stored
// from there to every peer. Loads of up to kPushSlots chunks are in flight at once and the
// stores drain on their own, where a block copying 16-byte vectors through registers
// waited for every batch of loads (about 13 GB/s per SM on the one-GPU proxy).
#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

#include "params.hpp"
#include "symm/device/ptx/gemm_mbarrier.cuh"
#include "symm/device/wait_record.cuh"
#include "symm/gemm/config.hpp"
#include "trace.cuh"

namespace symm::ops::detail {

inline constexpr int kPushSlots = 4;
inline constexpr int kPushBarrierBytes = 128;  // the slots' mbarriers, then the slots (aligned)

// Shared memory a pushing block needs for `blk_n`-wide tiles of `elem_bytes`: at least a
// row per slot (the fused kernel's comm blocks have the GEMM's, the scatter kernel asks).
constexpr int push_staging_min_bytes(int blk_n, int elem_bytes) {
  return kPushBarrierBytes + kPushSlots * blk_n * elem_bytes;
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

// A position in the sequence of chunks one block moves: rows [row, row + chunk rows) of
// tile `tile`. The loads and the stores each walk the sequence with a cursor of their own.
struct ChunkCursor {
  int tile, row;
  __device__ void advance(int rows_moved, int tile_rows, int step) {
    row += rows_moved;
    if (row >= tile_rows) {
      tile += step;
      row = 0;
    }
  }
};

// Waits until at most `newer` of this thread's bulk store groups are still reading shared
// memory (the group that read a slot before is the one before those).
__device__ inline void wait_store_reads(int newer) {
  static_assert(kPushSlots == 4, "one case per possible count of newer groups (0 to kPushSlots - 1)");
  switch (newer) {
    case 0: cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{}); break;
    case 1: cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<1>{}); break;
    case 2: cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<2>{}); break;
    default: cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<3>{}); break;
  }
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
// runs) and copied to every target; `smem` (`smem_bytes`, 16-byte aligned) stages them.
// Every thread of the block calls it; warp 0 does the work.
__device__ inline void push_tiles(const PushWork& w, std::uint8_t* smem, int smem_bytes, int first,
                                  int step) {
  if (threadIdx.x >= 32) return;
  const int lane = int(threadIdx.x);
  const ShardTargets& s = w.targets;
  auto* bars = reinterpret_cast<std::uint64_t*>(smem);
  std::uint8_t* slots = smem + kPushBarrierBytes;
  const int pitch = w.blk_n * s.elem_bytes;  // a slot's row stride: fixed, so each lane owns its rows
  // Chunks as even as the slots allow: 128 rows in 100-row slots go as two of 64.
  const int slot_rows = (smem_bytes - kPushBarrierBytes) / kPushSlots / pitch;
  const int chunks_per_tile = (w.blk_m + slot_rows - 1) / slot_rows;
  const int chunk_rows = (w.blk_m + chunks_per_tile - 1) / chunks_per_tile;
  const int slot_bytes = chunk_rows * pitch;
  if (lane == 0) {
    for (int i = 0; i < kPushSlots; ++i) cuda::ptx::mbarrier_init(&bars[i], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncwarp();

  const bool wait = w.tile_flags.flags != nullptr;
  const std::uint64_t epoch =
      wait ? cuda::atomic_ref<const std::uint64_t, cuda::thread_scope_device>(*w.tile_flags.epoch)
                     .load(cuda::memory_order_relaxed) + 1
           : 0;
  const int tiles = w.sched.num_tiles();
  ChunkCursor load{first, 0}, store{first, 0};
  int loaded = 0, stored = 0;  // chunks whose loads, and whose stores, have been issued
  while (store.tile < tiles) {
    // Loads: as many chunks ahead as there are free slots and published tiles. With nothing
    // in flight the next tile is waited for (bounded); otherwise only polled.
    while (load.tile < tiles && loaded - stored < kPushSlots) {
      if (load.row == 0 && wait) {
        int ready = 1;
        if (lane == 0) {
          const std::uint64_t* flag = &w.tile_flags.flags[load.tile * gemm::kConsumers];
          if (loaded == stored) {
            for (int g = 0; g < gemm::kConsumers; ++g)
              device::wait_at_least_recorded<cuda::thread_scope_device>(w.wait, flag + g, epoch, load.tile);
          } else {
            ready = tile_published(w.tile_flags, load.tile, epoch);
            if (ready) device::fence<cuda::memory_order_acquire, cuda::thread_scope_device>();
          }
        }
        if (!__shfl_sync(0xffffffffu, ready, 0)) break;
        __syncwarp();  // lane 0 acquired the tile for the warp
        cuda::ptx::fence_proxy_async(cuda::ptx::space_global);  // ... and for its bulk loads
      }
      const TileRegion r = tile_region(w, load.tile);
      if (load.row == 0 && lane == 0 && w.trace.push)
        w.trace.push[load.tile * kTraceLanes].begin = trace_clock();
      const int slot = loaded % kPushSlots;
      const int rows = r.rows - load.row < chunk_rows ? r.rows - load.row : chunk_rows;
      const std::uint32_t row_bytes = std::uint32_t(r.cols * s.elem_bytes);
      if (loaded >= kPushSlots) wait_store_reads(stored - 1 - (loaded - kPushSlots));  // 0 to 3
      if (lane == 0) ptx::mbarrier_arrive_expect_tx(&bars[slot], std::uint32_t(rows) * row_bytes);
      __syncwarp();
      const std::uint8_t* src =
          s.local + std::int64_t(r.row0 + load.row) * s.ldc_bytes + std::int64_t(r.col0) * s.elem_bytes;
      for (int i = lane; i < rows; i += 32)
        cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                 slots + slot * slot_bytes + i * pitch, src + i * s.ldc_bytes, row_bytes,
                                 &bars[slot]);
      load.advance(rows, r.rows, step);
      ++loaded;
    }

    // Stores of the oldest chunk in flight, to every target.
    const int slot = stored % kPushSlots;
    std::uint64_t waited = 0;
    if (!ptx::mbarrier_wait_bounded(&bars[slot], std::uint32_t(stored / kPushSlots) & 1u, w.wait.budget_ns,
                                    waited))
      device::record_wait_failure(w.wait, nullptr, store.tile, 0, 1, waited);
    const TileRegion r = tile_region(w, store.tile);
    const int rows = r.rows - store.row < chunk_rows ? r.rows - store.row : chunk_rows;
    const std::uint32_t row_bytes = std::uint32_t(r.cols * s.elem_bytes);
    const std::int64_t offset =
        std::int64_t(r.row0 + store.row) * s.ldc_bytes + std::int64_t(r.col0) * s.elem_bytes;
    for (int i = lane; i < rows; i += 32)
      for (int p = 0; p < s.peer_count; ++p)
        cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared,
                                 s.peers[p] + offset + i * s.ldc_bytes, slots + slot * slot_bytes + i * pitch,
                                 row_bytes);
    cuda::ptx::cp_async_bulk_commit_group();  // one group per chunk and lane, empty or not
    const int tile = store.tile;
    store.advance(rows, r.rows, step);
    ++stored;
    if (w.trace.push && store.tile != tile) {
      __syncwarp();  // every lane's stores of the tile issued
      if (lane == 0) {
        TraceSpan& span = w.trace.push[tile * kTraceLanes];
        span.end = trace_clock();
        span.block = int(blockIdx.x);
        span.lane = -1;
      }
    }
  }
  // The peers read C after this grid completes (the stream barrier): the stores must have
  // landed, and be ordered before the generic proxy's release that follows.
  cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
  cuda::ptx::fence_proxy_async(cuda::ptx::space_global);
}

}  // namespace symm::ops::detail
