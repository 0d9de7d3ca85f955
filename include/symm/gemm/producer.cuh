#pragma once
// The TMA producer: one thread walks the same work units as the consumers and fills the
// stage ring. TMA zero-fills whatever lies outside A or B (ragged M, N and K), and the
// transaction count is always the full box size.
#include <cuda/ptx>

#include "symm/device/ptx/gemm_mbarrier.cuh"
#include "symm/gemm/params.hpp"
#include "symm/gemm/pipeline.cuh"
#include "symm/gemm/types.hpp"

namespace symm::gemm {

template <class Cfg, class In, BLayout BL>
struct TmaProducer {
  using Smem = GemmSmem<Cfg, In>;
  static constexpr std::uint32_t STAGE_BYTES = Smem::A_STAGE_BYTES + Smem::B_STAGE_BYTES;
  static constexpr int KN_BOX_N = 64;                         // kn: boxes of (64 N, BLK_K K)
  static constexpr int KN_BOX_BYTES = KN_BOX_N * Cfg::BLK_K * 2;

  // (inner, outer) box of `map` into dst.
  __device__ static void load_2d(void* dst, const CUtensorMap* map, int inner, int outer,
                                 std::uint64_t* bar) {
    const std::int32_t coords[2] = {inner, outer};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map,
                                    coords, bar);
  }

  // Stage `stage` <- A rows of tile_m and B columns of tile_n, K iteration kb.
  __device__ static void load_stage(const WgmmaParams& p, Smem& s, int stage, int tile_m,
                                    int tile_n, int kb) {
    std::uint64_t* bar = &s.full[stage];
    const int k0 = kb * Cfg::BLK_K;
    load_2d(s.a[stage], &p.a, k0, tile_m * Cfg::BLK_M, bar);
    if constexpr (BL == BLayout::nk) {
      load_2d(s.b[stage], &p.b, k0, tile_n * Cfg::BLK_N, bar);
    } else {
#pragma unroll
      for (int j = 0; j < Cfg::BLK_N / KN_BOX_N; ++j)
        load_2d(s.b[stage] + j * KN_BOX_BYTES, &p.b, tile_n * Cfg::BLK_N + j * KN_BOX_N, k0, bar);
    }
  }

  __device__ static void run(const WgmmaParams& p, Smem& s, int worker, int workers) {
    RingPos<Cfg::STAGES> pos;
    WorkCursor cursor = p.sched.first(worker, workers);
    WorkUnit w;
    while (p.sched.next(cursor, workers, w)) {
      for (int kb = w.k_begin; kb < w.k_end; ++kb) {
        ptx::mbarrier_wait_bounded(&s.empty[pos.stage], pos.phase ^ 1, p.wait_timeout_ns);
        ptx::mbarrier_arrive_expect_tx(&s.full[pos.stage], STAGE_BYTES);
        load_stage(p, s, pos.stage, w.tile_m, w.tile_n, kb);
        pos.advance();
      }
    }
    // Stay until the consumers have released every stage: a stage whose data never
    // arrives (a TMA fault) ends the kernel here, through the bounded wait, instead of
    // hanging the consumers' unbounded one.
    for (int i = 0; i < Cfg::STAGES; ++i) {
      ptx::mbarrier_wait_bounded(&s.empty[pos.stage], pos.phase ^ 1, p.wait_timeout_ns);
      pos.advance();
    }
  }
};

}  // namespace symm::gemm
