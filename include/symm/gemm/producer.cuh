#pragma once
// The TMA producer: one thread walks the same work units as the consumers and fills the
// stage ring. TMA zero-fills whatever lies outside A or B (ragged M, N and K), and the
// transaction count is always the full box size. In a cluster (config.hpp), each block
// loads its own A tile and its part of the shared B tile into every block of the cluster.
#include <cuda/ptx>

#include "symm/device/ptx/gemm_mbarrier.cuh"
#include "symm/gemm/params.hpp"
#include "symm/gemm/pipeline.cuh"
#include "symm/gemm/types.hpp"
#include "symm/gemm/wait_record.cuh"

namespace symm::gemm {

template <class Cfg, class In, BLayout BL>
struct TmaProducer {
  using Smem = GemmSmem<Cfg, In>;
  static constexpr std::uint32_t STAGE_BYTES = Smem::A_STAGE_BYTES + Smem::B_STAGE_BYTES;
  static constexpr int KN_BOX_N = 64;                         // kn: boxes of (64 N, BLK_K K)
  static constexpr int KN_BOX_BYTES = KN_BOX_N * Cfg::BLK_K * 2;

  static constexpr std::uint16_t CLUSTER_MASK = (1u << Cfg::CLUSTER_M) - 1;

  // (inner, outer) box of `map` into dst; multicast: into dst of every block of the cluster.
  __device__ static void load_2d(void* dst, const CUtensorMap* map, int inner, int outer,
                                 std::uint64_t* bar, bool multicast) {
    const std::int32_t coords[2] = {inner, outer};
    const std::uint16_t mask = CLUSTER_MASK;  // taken by reference: a local, not the constant
    if (multicast)
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map,
                                      coords, bar, mask);
    else
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map,
                                      coords, bar);
  }

  // Stage `stage` <- A rows of row tile a_tile and this block's part of the B columns of
  // tile_n (all of them without a cluster), K iteration kb; `rank` in the cluster.
  __device__ static void load_stage(const WgmmaParams& p, Smem& s, int stage, int a_tile,
                                    int tile_n, int kb, int rank) {
    std::uint64_t* bar = &s.full[stage];
    const int k0 = kb * Cfg::BLK_K;
    constexpr bool multicast = Cfg::CLUSTER_M > 1;
    load_2d(s.a[stage], &p.a, k0, a_tile * Cfg::BLK_M, bar, false);
    if constexpr (BL == BLayout::nk) {
      load_2d(s.b[stage] + rank * Cfg::B_PART_ROWS * kSwizzleBytes, &p.b, k0,
              tile_n * Cfg::BLK_N + rank * Cfg::B_PART_ROWS, bar, multicast);
    } else {
#pragma unroll
      for (int j = 0; j < Cfg::BLK_N / KN_BOX_N; ++j)
        if (j % Cfg::CLUSTER_M == rank)
          load_2d(s.b[stage] + j * KN_BOX_BYTES, &p.b, tile_n * Cfg::BLK_N + j * KN_BOX_N, k0, bar,
                  multicast);
    }
  }

  // Until the consumers (of every block of the cluster) have handed back the stage at
  // `pos`; past the wait budget, records which stage and traps.
  __device__ static void wait_stage_free(const WgmmaParams& p, Smem& s, const RingPos<Cfg::STAGES>& pos) {
    std::uint64_t waited_ns = 0;
    if (!ptx::mbarrier_wait_bounded(&s.empty[pos.stage], pos.phase ^ 1, p.wait_timeout_ns, waited_ns))
      wait_failed(p.wait_record, GemmWaitSite::stage_release, pos.stage, -1, -1, -1, waited_ns);
  }

  // `worker` of `workers`: the block's cluster (the block, without clusters).
  __device__ static void run(const WgmmaParams& p, Smem& s, int worker, int workers, int rank) {
    RingPos<Cfg::STAGES> pos;
    WorkCursor cursor = p.sched.first(worker, workers);
    WorkUnit w;
    // A cluster's last unit may reach past M with its upper tiles; they load the last row
    // tile of A instead of boxes wholly outside it, and store nothing (persistent_gemm.cuh).
    const int last_a_tile = int(ceil_div(p.m, Cfg::BLK_M)) - 1;
    while (p.sched.next(cursor, workers, w)) {
      const int a_tile =
          Cfg::CLUSTER_M > 1 ? min_int(cluster_row_tile(w.tile_m, Cfg::CLUSTER_M, rank), last_a_tile) : w.tile_m;
      for (int kb = w.k_begin; kb < w.k_end; ++kb) {
        wait_stage_free(p, s, pos);
        ptx::mbarrier_arrive_expect_tx(&s.full[pos.stage], STAGE_BYTES);
        load_stage(p, s, pos.stage, a_tile, w.tile_n, kb, rank);
        pos.advance();
      }
    }
    // Stay until the consumers (of every block of the cluster) have released every stage:
    // a stage whose data never arrives (a TMA fault) ends the kernel here, through the
    // bounded wait, instead of hanging the consumers' unbounded one.
    for (int i = 0; i < Cfg::STAGES; ++i) {
      wait_stage_free(p, s, pos);
      pos.advance();
    }
  }
};

}  // namespace symm::gemm
