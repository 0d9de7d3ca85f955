#pragma once
// Epilogue hooks of the fused GEMM kernels (gemm/epilogue_hook.cuh gives the contract).
#include <cuda/atomic>
#include <cuda/ptx>

#include "copy_to_peers.cuh"
#include "params.hpp"
#include "symm/device/ptx/gemm_mbarrier.cuh"
#include "symm/gemm/epilogue_hook.cuh"
#include "tile_flags.cuh"
#include "trace.cuh"

namespace symm::ops::detail {

// tma_push: every staged piece of a tile is TMA-stored to each peer's C as well, from the
// same shared-memory staging tile as the local store: no re-read of C, no comm SMs. The
// stores drain while the warpgroup computes its next tile. A tile split along K is pushed
// by the unit that finishes it, with the whole sum.
struct TmaPushHook : TracePoints {
  static constexpr gemm::Notify kNotify = gemm::Notify::never;
  static constexpr bool kPushesChunks = true;
  static constexpr bool kWholeTiles = false;
  PeerMaps maps;

  __device__ void push_chunk(bool tail, const std::int32_t (&coords)[2], const void* staging) const {
    for (int i = 0; i < maps.count; ++i)
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared,
                                      tail ? &maps.c_tail[i] : &maps.c[i], coords, staging);
  }
};

// wg_specialization and producer_consumer: once a warpgroup's part of a tile is in the
// local C (the epilogue waited for its TMA stores and fenced the async proxy), thread 0
// releases the (tile, warpgroup) flag at device scope with this launch's epoch (a split
// tile's finishing unit, once it holds the whole sum). That happens while the warpgroup's
// next tile is under way, so its tensor cores do not wait for the stores.
struct TileFlagHook : TracePoints {
  static constexpr gemm::Notify kNotify = gemm::Notify::during_next_tile;
  static constexpr bool kPushesChunks = false;
  static constexpr bool kWholeTiles = false;
  TileFlags tile_flags;

  __device__ void publish(int tile, int warpgroup) const {
    cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(tile_flags.flags[tile * gemm::kConsumers + warpgroup])
        .store(this_launch_epoch(tile_flags), cuda::memory_order_release);
  }
  __device__ void push_chunk(bool, const std::int32_t (&)[2], const void*) const {}
};

// fused_sequential: the warpgroup that stored its part of a tile copies it to every peer
// itself (Iris example 07), before it computes its next tile. Whole tiles only: its copy
// loop beside the code that finishes split tiles spilled (128x192).
struct CopyToPeersHook : TracePoints {
  static constexpr gemm::Notify kNotify = gemm::Notify::at_once;
  static constexpr bool kPushesChunks = false;
  static constexpr bool kWholeTiles = true;
  ShardTargets targets;

  __device__ void after_tile(const gemm::TileInfo& info) const {
    const std::uint64_t begin = trace.push ? trace_clock() : 0;
    copy_region_to_peers(targets, info.row0, info.rows, info.col0, info.cols, info.thread,
                         gemm::kWarpgroupThreads);
    if (trace.push) {
      ptx::named_barrier_sync(1 + info.warpgroup, gemm::kWarpgroupThreads);  // every copy done
      if (info.thread == 0)
        trace.push[info.tile * kTraceLanes + info.warpgroup] = {begin, trace_clock(), int(blockIdx.x),
                                                                     info.warpgroup};
    }
  }
  __device__ void push_chunk(bool, const std::int32_t (&)[2], const void*) const {}
};

}  // namespace symm::ops::detail
