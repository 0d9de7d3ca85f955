#pragma once
// Shared memory of the persistent WGMMA kernel and the position in its stage ring.
//
// Stage s is guarded by two mbarriers: full[s] completes when the producer's TMA bytes
// have landed (one arrive.expect_tx + the transaction count), empty[s] when every
// consumer warpgroup has finished reading it (one arrival per consumer).
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
      cuda::ptx::mbarrier_init(&empty[s], Cfg::CONSUMERS);
    }
    // Make the initialised barriers visible to the async proxy (TMA) too.
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
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
