#pragma once
// Shared memory of the persistent WGMMA kernel and the position in its stage ring.
//
// Stage s is guarded by two mbarriers: full[s] completes when the producer's TMA bytes
// have landed (one arrive.expect_tx + the transaction count), empty[s] when every
// consumer warpgroup of every block of the cluster has finished reading it (with
// multicast, the other block writes half of this block's B tile).
#include <cstdint>

#include "symm/device/ptx/gemm_mbarrier.cuh"
#include "symm/gemm/config.hpp"

namespace symm::gemm {

template <class Cfg, class In>
struct alignas(1024) GemmSmem {
  static constexpr int A_STAGE_BYTES = Cfg::BLK_M * Cfg::BLK_K * 2;
  static constexpr int B_STAGE_BYTES = Cfg::BLK_N * Cfg::BLK_K * 2;
  static constexpr int STAGING_BYTES = kEpilogueRows * kSwizzleBytes;

  // (BLK_M, BLK_K) x STAGES: rows of 64 K-elements, 128B-swizzled.
  alignas(1024) std::uint8_t a[Cfg::STAGES][A_STAGE_BYTES];
  // nk: (BLK_N, BLK_K) x STAGES, rows of 64 K-elements;
  // kn: (BLK_K, 64) x (BLK_N / 64) x STAGES, rows of 64 N-elements. Both 128B-swizzled.
  alignas(1024) std::uint8_t b[Cfg::STAGES][B_STAGE_BYTES];
  // (64 rows, 128 B) x 2 x CONSUMERS: double-buffered epilogue tiles, 128B-swizzled.
  alignas(1024) std::uint8_t c[Cfg::CONSUMERS][2][STAGING_BYTES];
  std::uint64_t full[Cfg::STAGES];
  std::uint64_t empty[Cfg::STAGES];

  __device__ static GemmSmem& from(std::uint8_t* dynamic_smem) {
    const auto base = reinterpret_cast<std::uintptr_t>(dynamic_smem);
    return *reinterpret_cast<GemmSmem*>((base + 1023) & ~std::uintptr_t(1023));
  }

  __device__ void init_barriers() {
    for (int s = 0; s < Cfg::STAGES; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);
      cuda::ptx::mbarrier_init(&empty[s], Cfg::CONSUMERS * Cfg::CLUSTER_M);
    }
    // Make the initialised barriers visible to the async proxy (TMA) and the cluster.
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }

  // Every block of the cluster, before any use of another block's barriers or memory.
  __device__ static void sync_cluster() {
    if constexpr (Cfg::CLUSTER_M > 1) {
      cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
      cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
    } else {
      __syncthreads();
    }
  }

  // A consumer warpgroup is done reading `stage`: tell every producer that writes into it.
  __device__ void release(int stage) {
    if constexpr (Cfg::CLUSTER_M > 1) {
#pragma unroll
      for (int rank = 0; rank < Cfg::CLUSTER_M; ++rank) ptx::mbarrier_arrive_cluster(&empty[stage], rank);
    } else {
      ptx::mbarrier_arrive(&empty[stage]);
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
};

}  // namespace symm::gemm
