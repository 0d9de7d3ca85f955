#pragma once
// Finishing tiles whose K range is spread over several units (split-K and stream-K).
// Every unit but the finishing one writes its fp32 partial accumulators to the workspace
// and raises a counter; the finishing unit waits for the count, adds the partials in a
// fixed order (deterministic results) and resets the counter for the next launch.
//
//   split-K:  the k_splits units of a split tile are consecutive, so they run on
//             different workers at the same time; the last split finishes, and every wait
//             is for a lower-numbered unit: with all blocks resident (checked at launch)
//             the lowest unfinished unit always progresses. Partials per (split tile,
//             split), counters per (split tile, consumer warpgroup); the whole tiles before
//             them (dp_tiles, scheduler.hpp) need neither.
//   stream-K: a tile's later K iterations open the ranges of the following workers, so
//             those partials come first in their workers' lists; the worker holding the
//             tile's first iteration (at the end of its list) finishes it. A worker
//             writes at most one partial (its first unit): slots and flags per block.
// In a cluster every block finishes its own tile of the unit: slots and counters are per
// (unit or worker, block of the cluster).
#include <cuda/atomic>
#include <cuda/ptx>

#include "symm/device/ptx/gemm_mbarrier.cuh"
#include "symm/gemm/params.hpp"
#include "symm/gemm/wait_record.cuh"

namespace symm::gemm {

template <class Cfg, int M_BLOCKS, int ACC>
struct TileFixup {
  static constexpr int VEC = ACC / 4;  // float4s per thread per row block
  // Partials are laid out [float4 index][thread], so each store and load is coalesced.
  static constexpr std::size_t FLOATS = std::size_t(M_BLOCKS) * ACC * kWarpgroupThreads;
  using Accumulators = float[M_BLOCKS][ACC];

  // Where the block at `rank` of its cluster keeps its partial and counter: for split `split`
  // of unit w (split-K), or as worker `worker` (stream-K).
  __device__ static std::size_t split_tile(const WgmmaParams& p, const WorkUnit& w, int rank) {
    return std::size_t(w.tile - p.sched.dp_tiles) * Cfg::CLUSTER_BLOCKS + rank;
  }
  __device__ static std::size_t split_slot(const WgmmaParams& p, const WorkUnit& w, int split, int rank, int wg) {
    return (split_tile(p, w, rank) * (p.sched.k_splits - 1) + split) * Cfg::CONSUMERS + wg;
  }
  __device__ static std::size_t worker_slot(int worker, int rank, int wg) {
    return (std::size_t(worker) * Cfg::CLUSTER_BLOCKS + rank) * Cfg::CONSUMERS + wg;
  }
  __device__ static float4* partial(const WgmmaParams& p, std::size_t slot) {
    return reinterpret_cast<float4*>(p.splitk.partials + slot * FLOATS);
  }

  __device__ static void publish(const Accumulators& acc, const WgmmaParams& p, std::size_t slot,
                                 int& counter, int wg, int t) {
    float4* dst = partial(p, slot);
#pragma unroll
    for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
      for (int q = 0; q < VEC; ++q)
        dst[(mb * VEC + q) * kWarpgroupThreads + t] =
            make_float4(acc[mb][4 * q], acc[mb][4 * q + 1], acc[mb][4 * q + 2], acc[mb][4 * q + 3]);
    ptx::named_barrier_sync(1 + wg, kWarpgroupThreads);  // every partial store before the count
    if (t == 0) {
      __threadfence();
      cuda::atomic_ref<int, cuda::thread_scope_device>(counter).fetch_add(1, cuda::memory_order_release);
    }
  }

  // Thread 0 waits until `counter` reaches `expected`, then resets it for the next launch;
  // past the wait budget it records the tile and the count and traps (no printf: it
  // would make ptxas serialise every wgmma, C7510).
  __device__ static void wait_and_reset(const WgmmaParams& p, int& counter, int expected, int tile) {
    cuda::atomic_ref<int, cuda::thread_scope_device> count(counter);
    const std::uint64_t start = cuda::ptx::get_sreg_globaltimer();
    for (int seen = count.load(cuda::memory_order_acquire); seen < expected;
         seen = count.load(cuda::memory_order_acquire)) {
      const std::uint64_t waited_ns = cuda::ptx::get_sreg_globaltimer() - start;
      if (waited_ns > p.wait_timeout_ns)
        wait_failed(p.wait_record, GemmWaitSite::partial_sums, -1, tile, seen, expected, waited_ns);
    }
    count.store(0, cuda::memory_order_relaxed);
  }

  __device__ static void add(Accumulators& acc, const WgmmaParams& p, std::size_t slot, int t) {
    const float4* src = partial(p, slot);
#pragma unroll
    for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
      for (int q = 0; q < VEC; ++q) {
        const float4 v = __ldcg(&src[(mb * VEC + q) * kWarpgroupThreads + t]);
        acc[mb][4 * q] += v.x;
        acc[mb][4 * q + 1] += v.y;
        acc[mb][4 * q + 2] += v.z;
        acc[mb][4 * q + 3] += v.w;
      }
  }

  // After unit w's mainloop: true when this unit finishes its tile (acc then holds the
  // whole sum), false when it only contributed a partial. One code path for both modes
  // (two would not fit the consumer's registers).
  __device__ static bool finish(Accumulators& acc, const WgmmaParams& p, const WorkUnit& w, int wg,
                                int t, int worker, int rank) {
    const TileScheduler& sc = p.sched;
    // A split unit covers part of K (k_splits <= k_iters); the whole tiles before the split
    // ones (dp_tiles) all of it.
    const bool split = sc.k_splits > 1 && w.k_end - w.k_begin < sc.k_iters;
    if (!split && !sc.stream_k()) return true;
    int* counters = p.splitk.counters;
    const std::size_t tile_counter = split_tile(p, w, rank) * Cfg::CONSUMERS + wg;
    if (split ? w.split + 1 < sc.k_splits : w.k_begin > 0) {
      const std::size_t slot = split ? split_slot(p, w, w.split, rank, wg) : worker_slot(worker, rank, wg);
      publish(acc, p, slot, counters[split ? tile_counter : slot], wg, t);
      return false;
    }
    // The finishing unit adds the partials of `count` contributors, in order.
    int count = 0;
    if (split)
      count = sc.k_splits - 1;
    else if (w.k_end < sc.k_iters)
      count = sc.stream_k_last_worker(w.tile) - worker;
    for (int i = 0; i < count; ++i) {
      const std::size_t slot = split ? split_slot(p, w, i, rank, wg) : worker_slot(worker + 1 + i, rank, wg);
      if (!split || i == 0) {  // split-K: one counter for all; stream-K: one flag each
        if (t == 0)
          wait_and_reset(p, counters[split ? tile_counter : slot], split ? count : 1, w.tile);
        ptx::named_barrier_sync(1 + wg, kWarpgroupThreads);
      }
      add(acc, p, slot, t);
    }
    return true;
  }
};

}  // namespace symm::gemm
