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
  static constexpr int KN_BOX_N = 64;  // kn: one box is (64 N-elements, BLK_K rows)

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
        load_2d(s.b[stage] + j * KN_BOX_N * Cfg::BLK_K * 2, &p.b, tile_n * Cfg::BLK_N + j * KN_BOX_N,
                k0, bar);
    }
  }

  __device__ static void run(const WgmmaParams& p, Smem& s, int block, int num_blocks) {
    RingPos<Cfg::STAGES> pos;
    for (int u = block; u < p.sched.num_units(); u += num_blocks) {
      const WorkUnit w = p.sched.unit(u);
      for (int kb = w.k_begin; kb < w.k_end; ++kb) {
        ptx::mbarrier_wait(&s.empty[pos.stage], pos.phase ^ 1);
        ptx::mbarrier_arrive_expect_tx(&s.full[pos.stage], STAGE_BYTES);
        load_stage(p, s, pos.stage, w.tile_m, w.tile_n, kb);
        pos.advance();
      }
    }
  }
};

}  // namespace symm::gemm
