#pragma once
// Shared memory of the persistent WGMMA kernel and the position in its stage ring.
//
// Stage s is guarded by two mbarriers: full[s] completes when the producer's TMA bytes
// have landed (one arrive.expect_tx + the transaction count), empty[s] when the consumer
// warpgroups that read it (both, cooperative; the one whose tile it holds, ping-pong)
// have finished with it; with a cluster, those of every block of the cluster, since the
// blocks' producers write parts of each other's A and B tiles (multicast).
#include <cstdint>

#include <cuda/ptx>

#include "symm/device/ptx/gemm_mbarrier.cuh"
#include "symm/gemm/config.hpp"

namespace symm::gemm {

// threadIdx.x read where it is used: an asm volatile is neither hoisted out of a loop nor
// kept in a register between uses.
__device__ __forceinline__ unsigned thread_index_here() {
  unsigned t;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(t));
  return t;
}

template <class Cfg, class In>
struct alignas(1024) GemmSmem {
  static constexpr int A_STAGE_BYTES = Cfg::BLK_M * Cfg::BLK_K * 2;
  static constexpr int B_STAGE_BYTES = Cfg::BLK_N * Cfg::BLK_K * 2;
  static constexpr int STAGING_BYTES = kEpilogueRows * kSwizzleBytes;

  // (BLK_M, BLK_K) x STAGES: rows of 64 K-elements, 128B-swizzled.
  alignas(1024) std::uint8_t a[Cfg::STAGES][A_STAGE_BYTES];
  // nk: (BLK_N, BLK_K) x STAGES, rows of 64 K-elements;
  // kn: (BLK_K, 64) x (BLK_N / 64) x STAGES, rows of 64 N-elements, then (config.hpp)
  // (BLK_K, kn_tail_cols) swizzled over its narrower rows; else 128B-swizzled.
  alignas(1024) std::uint8_t b[Cfg::STAGES][B_STAGE_BYTES];
  // (64 rows, 128 B) x STAGING x CONSUMERS: the epilogue's staging tiles, 128B-swizzled.
  alignas(1024) std::uint8_t c[Cfg::CONSUMERS][Cfg::STAGING][STAGING_BYTES];
  std::uint64_t full[Cfg::STAGES];
  std::uint64_t empty[Cfg::STAGES];
  // Ping-pong: turn[w] completes when the other consumer has seen the last stage of its
  // unit arrive, so consumer w may wait for its own stages. Without the turns, a consumer
  // that skipped the other's stages could wait on a stage two fills behind and take the
  // older fill's phase for its own (mbarrier phases have one bit of parity).
  std::uint64_t turn[Cfg::CONSUMERS];

  __device__ static GemmSmem& from(std::uint8_t* dynamic_smem) {
    const auto base = reinterpret_cast<std::uintptr_t>(dynamic_smem);
    return *reinterpret_cast<GemmSmem*>((base + 1023) & ~std::uintptr_t(1023));
  }

  __device__ void init_barriers() {
    for (int s = 0; s < Cfg::STAGES; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);
      cuda::ptx::mbarrier_init(&empty[s], Cfg::READERS_PER_STAGE * Cfg::CLUSTER_BLOCKS);
    }
    for (int w = 0; w < Cfg::CONSUMERS; ++w) cuda::ptx::mbarrier_init(&turn[w], 1);
    // Make the initialised barriers visible to the async proxy (TMA).
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }

  // After the block's last unit, before its shared memory is put to another use (the
  // fused kernels' push role): every thread is past its last use of the stages, staging
  // tiles and barriers (the epilogue's drain has waited for its stores' reads), and the
  // barriers are invalidated. Blocks of a cluster cannot: the others use their memory.
  __device__ void retire() {
    static_assert(!Cfg::CLUSTERED, "a cluster's blocks write into each other's shared memory until all are done");
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int s = 0; s < Cfg::STAGES; ++s) {
        ptx::mbarrier_inval(&full[s]);
        ptx::mbarrier_inval(&empty[s]);
      }
      for (int w = 0; w < Cfg::CONSUMERS; ++w) ptx::mbarrier_inval(&turn[w]);
    }
    __syncthreads();
  }

  // A consumer warpgroup is done reading `stage`: hand it back to every producer that
  // writes into it. Called by every thread of the warpgroup; lane 0 of its warp r arrives
  // for cluster rank r, so the arrivals on the cluster's blocks leave from up to four warps
  // at once, not one after another from one thread (the 64x144 quads: 9.66 -> 9.54 us on
  // 1000 x 1000 x 1024, bench/results/gemm/2026-12-06-warp-release). The thread's place is
  // read here, afresh at each call: a value live through the K loop spills the widest
  // clustered tiles.
  __device__ void release(int stage) {
    static_assert(Cfg::CLUSTER_BLOCKS <= kWarpgroupThreads / 32, "one arriving warp per block of the cluster");
    const unsigned tid = thread_index_here();
    const unsigned warp = tid / 32 % (kWarpgroupThreads / 32);
    if (tid % 32 != 0 || warp >= unsigned(Cfg::CLUSTER_BLOCKS)) return;
    if constexpr (Cfg::CLUSTERED)
      ptx::mbarrier_arrive_cluster(&empty[stage], std::uint32_t(warp));
    else
      ptx::mbarrier_arrive(&empty[stage]);
  }

  // Every thread of every block of the cluster (of the block, without one): before the
  // first use of another block's barriers, and before a block whose shared memory the
  // other blocks still use may exit. The arrival is relaxed: the one write another block
  // must see first, the barriers' initialisation, is released by init_barriers' own
  // cluster-scope fence, and at the end each block has already waited, on its own
  // barriers, for every write the others made into its shared memory (stages, arrivals).
  // A release arrival waits for the thread's outstanding memory operations, the epilogue's
  // stores among them: 0.6 us more per launch on 1000 x 1000 x 64 in 2 x 1 clusters (ncu,
  // bench/results/gemm/2026-12-03-cluster-exit).
  __device__ static void sync_cluster() {
    if constexpr (Cfg::CLUSTERED) {
      cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);
      cuda::ptx::barrier_cluster_wait();
    } else {
      __syncthreads();
    }
  }
};

// Stage index and phase parity; the parity flips each time the ring wraps.
template <int STAGES>
struct RingPos {
  int stage = 0;
  std::uint32_t phase = 0;
  __device__ __forceinline__ void advance() {
    if (++stage == STAGES) {
      stage = 0;
      phase ^= 1;
    }
  }
  // Skips `n` positions (the stages of a unit another warpgroup consumes).
  __device__ __forceinline__ void advance(int n) {
    const int wraps = (stage + n) / STAGES;
    stage = (stage + n) % STAGES;
    phase ^= std::uint32_t(wraps & 1);
  }
};

}  // namespace symm::gemm
