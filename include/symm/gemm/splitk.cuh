#pragma once
// Split-K for tiles too few to fill the GPU: every split but the last writes its fp32
// partial accumulators to the workspace and counts itself in; the last split waits for
// the count, adds the partials in split order (deterministic) and runs the epilogue.
//
// The splits of one tile are consecutive work units, so they run on different blocks at
// the same time, and every wait is for a lower-numbered unit: with all blocks resident
// (checked at launch) the lowest unfinished unit always makes progress.
#include <cuda/atomic>
#include <cuda/ptx>

#include "symm/device/ptx/gemm_mbarrier.cuh"
#include "symm/gemm/params.hpp"

namespace symm::gemm {

template <class Cfg, int M_BLOCKS, int ACC>
struct SplitK {
  static constexpr int VEC = ACC / 4;  // float4s per thread per row block
  // Partials are laid out [float4 index][thread], so each store and load is coalesced.
  static constexpr std::size_t FLOATS = std::size_t(M_BLOCKS) * ACC * kWarpgroupThreads;

  __device__ static float4* slot(const WgmmaParams& p, int tile, int split, int wg) {
    const std::size_t index =
        (std::size_t(tile) * (p.sched.k_splits - 1) + split) * Cfg::CONSUMERS + wg;
    return reinterpret_cast<float4*>(p.splitk.partials + index * FLOATS);
  }
  __device__ static int& counter(const WgmmaParams& p, int tile, int wg) {
    return p.splitk.counters[tile * Cfg::CONSUMERS + wg];
  }

  __device__ static void publish(const float (&acc)[M_BLOCKS][ACC], const WgmmaParams& p,
                                 const WorkUnit& w, int wg, int t) {
    float4* dst = slot(p, w.tile, w.split, wg);
#pragma unroll
    for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
      for (int q = 0; q < VEC; ++q)
        dst[(mb * VEC + q) * kWarpgroupThreads + t] =
            make_float4(acc[mb][4 * q], acc[mb][4 * q + 1], acc[mb][4 * q + 2], acc[mb][4 * q + 3]);
    ptx::named_barrier_sync(1 + wg, kWarpgroupThreads);  // every partial store before the count
    if (t == 0) {
      __threadfence();
      cuda::atomic_ref<int, cuda::thread_scope_device>(counter(p, w.tile, wg))
          .fetch_add(1, cuda::memory_order_release);
    }
  }

  __device__ static void wait_for_others(const WgmmaParams& p, const WorkUnit& w, int wg) {
    cuda::atomic_ref<int, cuda::thread_scope_device> count(counter(p, w.tile, wg));
    const std::uint64_t start = cuda::ptx::get_sreg_globaltimer();
    while (count.load(cuda::memory_order_acquire) < p.sched.k_splits - 1) {
      if (cuda::ptx::get_sreg_globaltimer() - start > p.splitk.timeout_ns) {
        // No printf here: a call anywhere in the kernel makes ptxas serialise every wgmma
        // (C7510). The trap surfaces as a launch failure that the host reports.
        __trap();
      }
    }
    count.store(0, cuda::memory_order_relaxed);  // ready for the next launch
  }

  __device__ static void accumulate_others(float (&acc)[M_BLOCKS][ACC], const WgmmaParams& p,
                                           const WorkUnit& w, int wg, int t) {
    if (t == 0) wait_for_others(p, w, wg);
    ptx::named_barrier_sync(1 + wg, kWarpgroupThreads);
    for (int split = 0; split < p.sched.k_splits - 1; ++split) {
      const float4* src = slot(p, w.tile, split, wg);
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
  }
};

}  // namespace symm::gemm
