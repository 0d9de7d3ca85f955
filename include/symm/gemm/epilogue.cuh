#pragma once
// The epilogue: accumulators -> 128B-swizzled staging tiles in shared memory -> TMA
// stores into C (clipped at M and N by the tensor map). Each consumer warpgroup stores
// its own rows in (64 rows, 128 bytes) pieces through two alternating staging tiles.
#include <cuda/ptx>

#include "symm/device/ptx/gemm_mbarrier.cuh"
#include "symm/gemm/element.cuh"
#include "symm/gemm/epilogue_hook.cuh"
#include "symm/gemm/params.hpp"
#include "symm/gemm/pipeline.cuh"

namespace symm::gemm {

template <class Cfg, class In, class Out>
struct TmaEpilogue {
  using Smem = GemmSmem<Cfg, In>;
  static constexpr int COLS = kSwizzleBytes / sizeof(Out);  // columns per staging tile
  static constexpr int FULL_CHUNKS = Cfg::BLK_N / COLS;
  // A tile width that is not a multiple of 128 bytes (144 columns) ends with a narrower
  // piece, stored through its own tensor map (params.hpp: c_tail) with a 32- or 64-byte
  // swizzle.
  static constexpr int TAIL_BYTES = Cfg::BLK_N % COLS * int(sizeof(Out));
  static constexpr int CHUNKS = FULL_CHUNKS + (TAIL_BYTES > 0);
  static constexpr int M_BLOCKS = Cfg::WG_M / 64;
  static constexpr int ACC = Cfg::BLK_N / 2;
  static_assert(TAIL_BYTES == 0 || TAIL_BYTES == 32 || TAIL_BYTES == 64);

  // Byte offset of (row, byte) in a tile of ROW_BYTES-wide rows with the matching TMA
  // swizzle: the 16-byte unit index is XORed with address bits 7.. (row % 8 at 128 B).
  template <int ROW_BYTES>
  __device__ static int swizzled(int row, int byte) {
    const int unit = (byte >> 4) ^ ((row * ROW_BYTES >> 7) & (ROW_BYTES / 16 - 1));
    return row * ROW_BYTES + (unit << 4) + (byte & 15);
  }

  // Accumulators of one m64 row block, columns [ch * COLS, ch * COLS + ROW_BYTES / size)
  // -> tile. Per warp, 8 rows x 4 threads write 8 distinct 16-byte units: no bank
  // conflicts (the swizzle spreads the rows of narrow tiles too).
  template <int ROW_BYTES>
  __device__ static void stage_chunk(const float (&acc)[ACC], int ch, std::uint8_t* tile, int t) {
    constexpr int BLOCKS = ROW_BYTES / int(sizeof(Out)) / 8;  // 8-column accumulator blocks
    const int row = 16 * (t / 32) + (t % 32) / 4;
#pragma unroll
    for (int jb = 0; jb < BLOCKS; ++jb) {
      const int j = ch * (COLS / 8) + jb;
      const int byte = (jb * 8 + 2 * (t % 4)) * int(sizeof(Out));
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        auto* dst = reinterpret_cast<typename Packed2<Out>::type*>(
            tile + swizzled<ROW_BYTES>(row + 8 * half, byte));
        *dst = Packed2<Out>::pack(acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]);
      }
    }
  }

  // Stores warpgroup wg's (WG_M, BLK_N) accumulators at C[row0.., col0..]. `buf` is the
  // staging tile to use next; it carries over between tiles. A hook that pushes chunks
  // issues its own TMA stores of each staged piece in the same commit group.
  template <class Hook>
  __device__ static void store(const float (&acc)[M_BLOCKS][ACC], Smem& s, const WgmmaParams& p,
                               const Hook& hook, int wg, int t, int row0, int col0, int& buf) {
#pragma unroll
    for (int mb = 0; mb < M_BLOCKS; ++mb) {
#pragma unroll
      for (int ch = 0; ch < CHUNKS; ++ch) {
        const bool tail = ch == FULL_CHUNKS;
        // The store issued from this staging tile two pieces ago must have read it.
        if (t == 0) cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<1>{});
        ptx::named_barrier_sync(1 + wg, kWarpgroupThreads);
        if (tail)
          stage_chunk<(TAIL_BYTES > 0 ? TAIL_BYTES : kSwizzleBytes)>(acc[mb], ch, s.c[wg][buf], t);
        else
          stage_chunk<kSwizzleBytes>(acc[mb], ch, s.c[wg][buf], t);
        cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // generic writes -> TMA reads
        ptx::named_barrier_sync(1 + wg, kWarpgroupThreads);
        if (t == 0) {
          const std::int32_t coords[2] = {col0 + ch * COLS, row0 + mb * 64};
          cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared,
                                          tail ? &p.c_tail : &p.c, coords, s.c[wg][buf]);
          if constexpr (Hook::kPushesChunks) hook.push_chunk(tail, coords, s.c[wg][buf]);
          cuda::ptx::cp_async_bulk_commit_group();
        }
        buf ^= 1;
      }
    }
  }

  // Runs the hook once this warpgroup's stores are complete in global memory.
  template <class Hook>
  __device__ static void notify(const Hook& hook, const TileInfo& info, int wg) {
    if constexpr (Hook::kNotifies) {
      if (info.thread == 0) {
        cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
        cuda::ptx::fence_proxy_async(cuda::ptx::space_global);
      }
      ptx::named_barrier_sync(1 + wg, kWarpgroupThreads);
      hook.after_tile(info);
    }
  }

  // Before the block exits: staging tiles must outlive the stores reading them. Stores
  // a hook pushed to peers are waited for in full, and made visible to the generic proxy,
  // so that the barrier after the kernel orders them before its release.
  template <class Hook>
  __device__ static void drain(int t) {
    if (t != 0) return;
    if constexpr (Hook::kPushesChunks) {
      cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
      cuda::ptx::fence_proxy_async(cuda::ptx::space_global);
    } else {
      cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
    }
  }
};

}  // namespace symm::gemm
