#pragma once
// The persistent, warp-specialised TMA + WGMMA GEMM (sm_90a).
//
// Each block walks its units of the tile scheduler. Warpgroup 0 produces (one thread
// issues TMA into the stage ring), warpgroups 1..CONSUMERS consume (WGMMA into registers,
// then the epilogue): together on each tile (cooperative, swapped) or on alternate tiles
// (ping-pong; config.hpp). A fused kernel calls PersistentGemm<...>::run() from its own
// __global__ for its GEMM blocks; it must launch Cfg::THREADS threads with
// __launch_bounds__(Cfg::THREADS, 1) and Cfg::SMEM_BYTES of dynamic shared memory, and
// leave named barriers 1..CONSUMERS to the GEMM.
#include "symm/device/ptx/setmaxnreg.cuh"
#include "symm/gemm/epilogue.cuh"
#include "symm/gemm/mainloop.cuh"
#include "symm/gemm/producer.cuh"
#include "symm/gemm/splitk.cuh"

namespace symm::gemm {

template <class Cfg, class In, class Out, BLayout BL, class Hook = NoEpilogueHook>
struct PersistentGemm {
  using Smem = GemmSmem<Cfg, In>;
  using Mainloop = WgmmaMainloop<Cfg, In, BL>;
  using Epilogue = TmaEpilogue<Cfg, In, Out>;
  using Fixup = TileFixup<Cfg, Mainloop::M_BLOCKS, Mainloop::ACC>;
  static_assert(sizeof(Smem) + kSmemAlignSlack == Cfg::SMEM_BYTES,
                "the shared-memory budget (config.hpp) must describe GemmSmem exactly");
  // After setmaxnreg the warpgroups must fit in what the block holds from launch (config.hpp):
  // more, and the consumers' setmaxnreg.inc waits forever (a producer kept at 48 registers
  // with consumers at 232 hung every two-consumer kernel, bench/results/gemm/2026-12-05-lsu-loads).
  static_assert(Cfg::CONSUMERS * kWarpgroupThreads * Cfg::CONSUMER_REGISTERS +
                        kWarpgroupThreads * kProducerRegisters <=
                    block_registers(Cfg::THREADS),
                "the warpgroups' registers after setmaxnreg exceed the block's");

  // Warpgroup wg's part of the tile of unit w in the block at `seat` of its cluster.
  __device__ static TileInfo tile_info(const WgmmaParams& p, const WorkUnit& w, ClusterSeat seat, int wg, int t) {
    const int tile_m = cluster_tile(w.tile_m, Cfg::CLUSTER_M, seat.m);
    const int tile_n = cluster_tile(w.tile_n, Cfg::CLUSTER_N, seat.n);
    const int row0 = tile_m * Cfg::BLK_M + wg * Cfg::WG_ROW_STRIDE;
    const int col0 = tile_n * Cfg::BLK_N + wg * Cfg::WG_COL_STRIDE;
    const int rows = p.m - row0 < Cfg::WG_M ? p.m - row0 : Cfg::WG_M;
    const int cols = p.n - col0 < Cfg::WG_N ? p.n - col0 : Cfg::WG_N;
    const int tile = w.tile * Cfg::CLUSTER_BLOCKS + cluster_rank(seat, Cfg::CLUSTER_M);
    return TileInfo{tile, tile_m, tile_n, row0, col0, rows > 0 ? rows : 0, cols > 0 ? cols : 0, wg, t};
  }

  // Consumer warpgroup wg (0-based) of worker `block` (a block, or a cluster: then `seat`
  // is the block's place in it): accumulate each unit (ping-pong: every other one, the stages of
  // the others skipped), finish split tiles, store, notify the hook (epilogue_hook.cuh).
  __device__ static void consume(const WgmmaParams& p, const Hook& hook, Smem& s, int wg,
                                 int block, int workers, ClusterSeat seat) {
    const int t = threadIdx.x % kWarpgroupThreads;
    RingPos<Cfg::STAGES> pos;
    int staging = 0;
    typename Mainloop::Accumulators acc;
    WorkCursor cursor = p.sched.first(block, workers);
    WorkUnit w;
    // The hook's tracing points name the block itself, not its cluster (ranks are consecutive).
    const int own_block = block * Cfg::CLUSTER_BLOCKS + cluster_rank(seat, Cfg::CLUSTER_M);
    hook.worker_started(own_block, wg, t);
    int unpublished = -1;  // Notify::during_next_tile: the tile whose stores are not yet waited for
    const auto publish = [&] {
      if constexpr (Hook::kNotify == Notify::during_next_tile) {
        if (t == 0 && unpublished >= 0) Epilogue::publish(hook, unpublished, wg);
        unpublished = -1;
      }
    };
    for (int unit = 0; p.sched.next(cursor, workers, w); ++unit) {
      const int k_tiles = w.k_end - w.k_begin;
      std::uint64_t* turn_over = nullptr;
      if constexpr (Cfg::PINGPONG) {
        if (unit % Cfg::CONSUMERS != wg) {
          pos.advance(k_tiles);
          continue;
        }
        // Unit u > 0 follows the other consumer's unit u - 1: the ((u - 1) / 2)-th turn.
        if (unit > 0) ptx::mbarrier_wait(&s.turn[wg], std::uint32_t((unit - 1) / 2) & 1);
        turn_over = &s.turn[1 - wg];
      }
      Mainloop::zero(acc);
      Mainloop::run(acc, s, pos, k_tiles, wg, t == 0, turn_over, publish);
      // Plans of such configurations, and of hooks that publish whole tiles, are whole
      // tiles (config.hpp, plan.cc, epilogue_hook.cuh): no fixup code in their kernels (it
      // would only cost them registers).
      if constexpr (!Cfg::WHOLE_TILES_ONLY && !Hook::kWholeTiles)
        if (!Fixup::finish(acc, p, w, wg, t, block, cluster_rank(seat, Cfg::CLUSTER_M))) continue;
      const TileInfo info = tile_info(p, w, seat, wg, t);
      if (Cfg::CLUSTERED && (info.row0 >= p.m || info.col0 >= p.n)) continue;  // a cluster's tile past M or N
      Epilogue::store(acc, s, p, hook, wg, t, info.row0, info.col0, staging);
      hook.tile_stored(info);
      if constexpr (Hook::kNotify == Notify::at_once) Epilogue::notify_at_once(hook, info, wg);
      if constexpr (Hook::kNotify == Notify::during_next_tile) unpublished = info.tile;
    }
    publish();
    Epilogue::template drain<Hook>(t);
    hook.worker_finished(own_block, wg, t);
  }

  // Block `block` of num_blocks (a multiple of the cluster size; a cluster's blocks are
  // consecutive).
  __device__ static void run(const WgmmaParams& p, const Hook& hook, std::uint8_t* dynamic_smem,
                             int block, int num_blocks) {
    Smem& s = Smem::from(dynamic_smem);
    if (threadIdx.x == 0) s.init_barriers();
    Smem::sync_cluster();
    const ClusterSeat seat =
        cluster_seat(Cfg::CLUSTERED ? int(cuda::ptx::get_sreg_cluster_ctarank()) : 0, Cfg::CLUSTER_M);
    const int worker = block / Cfg::CLUSTER_BLOCKS, workers = num_blocks / Cfg::CLUSTER_BLOCKS;
    const int warpgroup = threadIdx.x / kWarpgroupThreads;
    if (warpgroup == 0) {
      ptx::setmaxnreg_dec<kProducerRegisters>();
      if (threadIdx.x == 0) TmaProducer<Cfg, In, BL>::run(p, s, worker, workers, seat);
    } else {
      ptx::setmaxnreg_inc<Cfg::CONSUMER_REGISTERS>();
      consume(p, hook, s, warpgroup - 1, worker, workers, seat);
    }
    // The other blocks' producers write into this block's stages and their consumers arrive
    // on this block's barriers until their last unit: stay until all are done. Bounded
    // through the producers: a block that never gets here is held by a stage its producer
    // waits for, and that wait traps, ending the grid.
    if constexpr (Cfg::CLUSTERED) Smem::sync_cluster();
  }
};

template <class Cfg, class In, class Out, BLayout BL, class Hook>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    persistent_gemm_kernel(const __grid_constant__ WgmmaParams p, const __grid_constant__ Hook hook) {
  extern __shared__ std::uint8_t dynamic_smem[];
  PersistentGemm<Cfg, In, Out, BL, Hook>::run(p, hook, dynamic_smem, blockIdx.x, gridDim.x);
}

}  // namespace symm::gemm
