#pragma once
// The TMA producer: one thread walks the same work units as the consumers and fills the
// stage ring. TMA zero-fills whatever lies outside A or B (ragged M, N and K), and the
// transaction count is always the full box size. In a cluster (config.hpp), each block
// loads its part of the A tile its cluster row shares and of the B tile its cluster column
// shares, into every block of that row or column.
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
  static constexpr int KN_BOX_N = 64;  // kn: boxes of (64 N, BLK_K K), then the tail's box
  static constexpr int KN_BOX_BYTES = KN_BOX_N * Cfg::BLK_K * 2;
  static constexpr int KN_BOXES = Cfg::BLK_N / KN_BOX_N;

  // Blocks of the cluster that share this block's B tile (its cluster column) and A tile
  // (its cluster row), as multicast masks over cluster ranks (rank = m + CLUSTER_M * n).
  __device__ static std::uint16_t column_mask(ClusterSeat seat) {
    return std::uint16_t(((1u << Cfg::CLUSTER_M) - 1) << (seat.n * Cfg::CLUSTER_M));
  }
  __device__ static std::uint16_t row_mask(ClusterSeat seat) {
    std::uint16_t mask = 0;
#pragma unroll
    for (int n = 0; n < Cfg::CLUSTER_N; ++n) mask |= std::uint16_t(1u << (seat.m + n * Cfg::CLUSTER_M));
    return mask;
  }

  // (inner, outer) box of `map` into dst; a mask of more than this block: into dst of each
  // of those blocks of the cluster (multicast).
  __device__ static void load_2d(void* dst, const CUtensorMap* map, int inner, int outer,
                                 std::uint64_t* bar, std::uint16_t mask, bool multicast) {
    const std::int32_t coords[2] = {inner, outer};
    if (multicast)
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map,
                                      coords, bar, mask);
    else
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map,
                                      coords, bar);
  }

  // Stage `stage` <- this block's part of the A rows of row tile a_tile and of the B
  // columns of column tile b_tile (all of them without a cluster), K iteration kb.
  __device__ static void load_stage(const WgmmaParams& p, Smem& s, int stage, int a_tile,
                                    int b_tile, int kb, ClusterSeat seat) {
    std::uint64_t* bar = &s.full[stage];
    const int k0 = kb * Cfg::BLK_K;
    load_2d(s.a[stage] + seat.n * Cfg::A_PART_ROWS * kSwizzleBytes, &p.a, k0,
            a_tile * Cfg::BLK_M + seat.n * Cfg::A_PART_ROWS, bar, row_mask(seat), Cfg::CLUSTER_N > 1);
    constexpr bool b_multicast = Cfg::CLUSTER_M > 1;
    if constexpr (BL == BLayout::nk) {
      load_2d(s.b[stage] + seat.m * Cfg::B_PART_ROWS * kSwizzleBytes, &p.b, k0,
              b_tile * Cfg::BLK_N + seat.m * Cfg::B_PART_ROWS, bar, column_mask(seat), b_multicast);
    } else {
#pragma unroll
      for (int j = 0; j < KN_BOXES; ++j)
        if (j % Cfg::CLUSTER_M == seat.m)
          load_2d(s.b[stage] + j * KN_BOX_BYTES, &p.b, b_tile * Cfg::BLK_N + j * KN_BOX_N, k0, bar,
                  column_mask(seat), b_multicast);
      if constexpr (kn_tail_cols(Cfg::BLK_N) > 0)
        if (KN_BOXES % Cfg::CLUSTER_M == seat.m)
          load_2d(s.b[stage] + KN_BOXES * KN_BOX_BYTES, &p.b_tail, b_tile * Cfg::BLK_N + KN_BOXES * KN_BOX_N,
                  k0, bar, column_mask(seat), b_multicast);
    }
  }

  // The budget of a wait for a free stage. Where tiles are split, a consumer waits for
  // other blocks' partial sums (with the budget) before it takes the next unit's stages,
  // and the producer, ahead of it, waits for those stages meanwhile: twice the budget, so
  // that a partial sum that never comes is reported as such, not as a stage never released.
  __device__ static std::uint64_t stage_free_budget(const WgmmaParams& p) {
    return p.sched.k_splits > 1 || p.sched.stream_k() ? 2 * p.wait_timeout_ns : p.wait_timeout_ns;
  }

  // Until the consumers (of every block of the cluster) have handed back the stage at
  // `pos`; past `budget_ns`, records which stage and traps.
  __device__ static void wait_stage_free(const WgmmaParams& p, Smem& s, const RingPos<Cfg::STAGES>& pos,
                                         std::uint64_t budget_ns) {
    std::uint64_t waited_ns = 0;
    if (!ptx::mbarrier_wait_bounded(&s.empty[pos.stage], pos.phase ^ 1, budget_ns, waited_ns))
      wait_failed(p.wait_record, GemmWaitSite::stage_release, pos.stage, -1, -1, -1, waited_ns);
  }

  // `worker` of `workers`: the block's cluster (the block, without clusters).
  __device__ static void run(const WgmmaParams& p, Smem& s, int worker, int workers, ClusterSeat seat) {
    RingPos<Cfg::STAGES> pos;
    const std::uint64_t budget_ns = stage_free_budget(p);
    WorkCursor cursor = p.sched.first(worker, workers);
    WorkUnit w;
    // A cluster's last unit may reach past M (N) with some of its tiles; they load the last
    // row (column) tile instead of boxes wholly outside the operand, since the blocks that
    // share their other operand need its parts, and store nothing (persistent_gemm.cuh).
    const int last_a_tile = int(ceil_div(p.m, Cfg::BLK_M)) - 1;
    const int last_b_tile = int(ceil_div(p.n, Cfg::BLK_N)) - 1;
    while (p.sched.next(cursor, workers, w)) {
      const int a_tile = min_int(cluster_tile(w.tile_m, Cfg::CLUSTER_M, seat.m), last_a_tile);
      const int b_tile = min_int(cluster_tile(w.tile_n, Cfg::CLUSTER_N, seat.n), last_b_tile);
      for (int kb = w.k_begin; kb < w.k_end; ++kb) {
        wait_stage_free(p, s, pos, budget_ns);
        ptx::mbarrier_arrive_expect_tx(&s.full[pos.stage], STAGE_BYTES);
        load_stage(p, s, pos.stage, a_tile, b_tile, kb, seat);
        pos.advance();
      }
    }
    // Stay until the consumers (of every block of the cluster) have released every stage:
    // a stage whose data never arrives (a TMA fault) ends the kernel here, through the
    // bounded wait, instead of hanging the consumers' unbounded one.
    for (int i = 0; i < Cfg::STAGES; ++i) {
      wait_stage_free(p, s, pos, budget_ns);
      pos.advance();
    }
  }
};

}  // namespace symm::gemm
