#pragma once
// The epilogue: accumulators -> 128B-swizzled staging tiles in shared memory -> TMA
// stores into C (clipped at M and N by the tensor map). Each consumer warpgroup stores
// its own part in (64 rows, 128 bytes) pieces through its staging tiles (two alternating,
// or one where the ring leaves no room for two: config.hpp, staging_tiles).
#include <type_traits>
#include <utility>

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
  static constexpr int M_BLOCKS = Cfg::ACC_BLOCKS;
  static constexpr int ACC = Cfg::ACC;
  static_assert(TAIL_BYTES == 0 || TAIL_BYTES == 32 || TAIL_BYTES == 64);
  // Swapped tiles: each 64-column block of a consumer in pieces of COLS, its BLK_M rows in pieces of
  // 64 and a last one of SWAPPED_TAIL_ROWS, stored through c_tail (params.hpp).
  static constexpr int SWAPPED_COL_PIECES = 64 / COLS;
  static constexpr int SWAPPED_ROW_PIECES = (Cfg::BLK_M + kEpilogueRows - 1) / kEpilogueRows;
  static constexpr int SWAPPED_TAIL_ROWS = Cfg::BLK_M % kEpilogueRows;

  // Byte offset of (row, byte) in a tile of ROW_BYTES-wide rows with the matching TMA
  // swizzle: the 16-byte unit index is XORed with address bits 7.. (row % 8 at 128 B).
  template <int ROW_BYTES>
  __device__ static int unit_xor(int row) {
    return (row * ROW_BYTES >> 7) & (ROW_BYTES / 16 - 1);
  }
  template <int ROW_BYTES>
  __device__ static int swizzled(int row, int byte) {
    return row * ROW_BYTES + (((byte >> 4) ^ unit_xor<ROW_BYTES>(row)) << 4) + (byte & 15);
  }

  // 16-bit outputs leave the registers by stmatrix (ptx/gemm_smem.cuh), four 8x8 matrices
  // per instruction, where one st.shared writes two elements (a quarter of the issue
  // slots; swapped tiles, which write single elements, an eighth).
  static constexpr bool STMATRIX = sizeof(Out) == 2;
  __device__ static std::uint32_t packed(float x, float y) {
    const auto pair = Converted<Out>::pair(x, y);
    static_assert(sizeof(pair) == sizeof(std::uint32_t));
    std::uint32_t bits;
    memcpy(&bits, &pair, sizeof bits);  // __half2 is not trivially copyable: no bit_cast
    return bits;
  }

  // Accumulators of one m64 row block, columns [ch * COLS, ch * COLS + ROW_BYTES / size)
  // -> tile. Thread t's accumulators 4 j + 2 h + {0, 1} are row 16 (t / 32) + t % 32 / 4
  // + 8 h, columns 8 j + 2 (t % 4) + {0, 1}: per warp and (j, h) one 8x8 matrix in
  // stmatrix's fragment layout. Per warp, 8 rows x 4 threads (st.shared) or the 8 rows of
  // a matrix (stmatrix) write 8 distinct 16-byte units: no bank conflicts (the swizzle
  // spreads the rows of narrow tiles too).
  template <int ROW_BYTES>
  __device__ static void stage_chunk(const float (&acc)[ACC], int ch, std::uint8_t* tile, int t) {
    constexpr int BLOCKS = ROW_BYTES / int(sizeof(Out)) / 8;  // 8-column accumulator blocks
    const int warp = t / 32, lane = t % 32;
    if constexpr (STMATRIX) {
      static_assert(BLOCKS % 2 == 0, "pieces of whole pairs of 8-column blocks");
      // Matrices (jb, 0), (jb, 1), (jb + 1, 0), (jb + 1, 1); lane addresses a row of lane / 8.
      const int m = lane / 8;
      const int row = 16 * warp + 8 * (m % 2) + lane % 8;
      // 32-bit shared addresses: generic pointers per matrix row cost the fused kernels'
      // tightest instance (128x192, copies to peers) a spill.
      const std::uint32_t row_addr = ptx::smem_addr(tile) + std::uint32_t(row * ROW_BYTES);
      const int unit_swizzle = unit_xor<ROW_BYTES>(row);
#pragma unroll
      for (int jb = 0; jb < BLOCKS; jb += 2) {
        const int j = ch * (COLS / 8) + jb;
        ptx::stmatrix_x4<false>(row_addr + std::uint32_t(((jb + m / 2) ^ unit_swizzle) << 4),
                                packed(acc[4 * j], acc[4 * j + 1]), packed(acc[4 * j + 2], acc[4 * j + 3]),
                                packed(acc[4 * j + 4], acc[4 * j + 5]), packed(acc[4 * j + 6], acc[4 * j + 7]));
      }
    } else {
      const int row = 16 * warp + lane / 4;
#pragma unroll
      for (int jb = 0; jb < BLOCKS; ++jb) {
        const int j = ch * (COLS / 8) + jb;
        const int byte = (jb * 8 + 2 * (lane % 4)) * int(sizeof(Out));
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          auto* dst = reinterpret_cast<typename Converted<Out>::Pair*>(
              tile + swizzled<ROW_BYTES>(row + 8 * half, byte));
          *dst = Converted<Out>::pair(acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]);
        }
      }
    }
  }

  // One piece at C[row.., col..] through the next staging tile: wait until the store
  // issued from that tile STAGING pieces ago has read it, have the warpgroup write the
  // piece (`stage(tile)`), and store it by TMA (with the hook's pushes of it, if any) in
  // one commit group. `buf`: the staging tile to use next; it carries over between tiles.
  template <class Hook, class Stage>
  __device__ __forceinline__ static void store_piece(Smem& s, const WgmmaParams& p, const Hook& hook, int wg,
                                                     int t, bool tail, std::int32_t col, std::int32_t row,
                                                     int& buf, const Stage& stage) {
    if (t == 0) cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<Cfg::STAGING - 1>{});
    ptx::named_barrier_sync(1 + wg, kWarpgroupThreads);
    std::uint8_t* tile = s.c[wg][buf];
    stage(tile);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // generic writes -> TMA reads
    ptx::named_barrier_sync(1 + wg, kWarpgroupThreads);
    if (t == 0) {
      const std::int32_t coords[2] = {col, row};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared,
                                      tail ? &p.c_tail : &p.c, coords, tile);
      if constexpr (Hook::kPushesChunks) hook.push_chunk(tail, coords, tile);
      cuda::ptx::cp_async_bulk_commit_group();
    }
    buf = buf + 1 == Cfg::STAGING ? 0 : buf + 1;
  }

  // Stores warpgroup wg's (WG_M, WG_N) accumulators at C[row0.., col0..]. A hook that
  // pushes chunks issues its own TMA stores of each staged piece in the same commit group.
  template <class Hook>
  __device__ static void store(const float (&acc)[M_BLOCKS][ACC], Smem& s, const WgmmaParams& p,
                               const Hook& hook, int wg, int t, int row0, int col0, int& buf) {
    if constexpr (Cfg::SWAPPED) {
      [&]<int... MB>(std::integer_sequence<int, MB...>) {
        (store_swapped(acc[MB], s, p, hook, wg, t, row0, col0 + MB * 64, buf), ...);
      }(std::make_integer_sequence<int, M_BLOCKS>{});
    } else {
#pragma unroll
      for (int mb = 0; mb < M_BLOCKS; ++mb) {
#pragma unroll
        for (int ch = 0; ch < CHUNKS; ++ch) {
          const bool tail = ch == FULL_CHUNKS;
          store_piece(s, p, hook, wg, t, tail, col0 + ch * COLS, row0 + mb * 64, buf, [&](std::uint8_t* tile) {
            if (tail)
              stage_chunk<(TAIL_BYTES > 0 ? TAIL_BYTES : kSwizzleBytes)>(acc[mb], ch, tile, t);
            else
              stage_chunk<kSwizzleBytes>(acc[mb], ch, tile, t);
          });
        }
      }
    }
  }

  // One 64-column block of a swapped tile's part (config.hpp): the wgmma's row r is C's
  // column col0 + r and its column c C's row row0 + c. Thread t's accumulator i is (r, c) =
  // (16 (t / 32) + t % 32 / 4 + 8 ((i / 2) % 2), 8 (i / 4) + 2 (t % 4) + i % 2) (the fragment
  // stage_chunk reads); elements adjacent in C are in different threads, so each is written
  // alone. Per warp and element, 4 rows of 8 adjacent columns: distinct 16-byte units after
  // the swizzle. The blocks and row pieces are compile-time sequences, not loops: every
  // index into acc must be a constant, or acc moves to local memory (an unrolled loop is
  // only a hint to the compiler).
  template <class Hook>
  __device__ __forceinline__ static void store_swapped(const float (&acc)[ACC], Smem& s, const WgmmaParams& p,
                                                       const Hook& hook, int wg, int t, int row0, int col0,
                                                       int& buf) {
    [&]<int... RP>(std::integer_sequence<int, RP...>) {
      (store_swapped_rows<RP>(acc, s, p, hook, wg, t, row0, col0, buf), ...);
    }(std::make_integer_sequence<int, SWAPPED_ROW_PIECES>{});
  }

  // Rows [64 RP, 64 RP + 64) of a swapped tile's part: accumulators 32 RP .. 32 RP + 31.
  template <int RP, class Hook>
  __device__ __forceinline__ static void store_swapped_rows(const float (&acc)[ACC], Smem& s, const WgmmaParams& p,
                                                            const Hook& hook, int wg, int t, int row0, int col0,
                                                            int& buf) {
    constexpr bool tail = SWAPPED_TAIL_ROWS > 0 && RP == SWAPPED_ROW_PIECES - 1;
    constexpr int FIRST = 32 * RP, COUNT = ACC - FIRST < 32 ? ACC - FIRST : 32;
    const int warp = t / 32, lane = t % 32;
#pragma unroll
    for (int cp = 0; cp < SWAPPED_COL_PIECES; ++cp) {
      store_piece(s, p, hook, wg, t, tail, col0 + cp * COLS, row0 + RP * kEpilogueRows, buf,
                  [&](std::uint8_t* tile) {
                    if constexpr (STMATRIX) {
                      stage_swapped_rows<FIRST, COUNT>(acc, tile, warp, lane);
                    } else {  // fp32: elements adjacent in C sit in different threads
                      // A warp's 16 columns lie in one piece: the warps of the other piece
                      // skip it whole (a test per element cost three consumers' registers).
                      static_assert(std::is_same_v<Out, float> && COLS % 16 == 0);
                      if (16 * warp / COLS == cp) {
#pragma unroll
                        for (int j = 0; j < COUNT; ++j) {
                          const int col = 16 * warp + lane / 4 + 8 * (((FIRST + j) / 2) % 2);
                          const int row = 8 * (j / 4) + 2 * (lane % 4) + j % 2;
                          *reinterpret_cast<float*>(tile + swizzled<kSwizzleBytes>(row, (col % COLS) * 4)) =
                              acc[FIRST + j];
                        }
                      }
                    }
                  });
    }
  }

  // A swapped piece of 16-bit elements (one 64-column block is one 128-byte piece): per
  // warp and 8-row group jj of the piece, the matrices (jj, h), h = 0, 1, hold C rows
  // 8 jj .. 8 jj + 7 at C columns 16 warp + 8 h .. + 7 transposed (the fragment's row is
  // C's column), which stmatrix's .trans writes as C's rows: accumulators FIRST + 4 jj + 2 h
  // + {0, 1}. Pairs of groups by x4, an odd last group by x2.
  template <int FIRST, int COUNT>
  __device__ __forceinline__ static void stage_swapped_rows(const float (&acc)[ACC], std::uint8_t* tile, int warp,
                                                            int lane) {
    static_assert(SWAPPED_COL_PIECES == 1, "a 64-column block of 16-bit elements is one 128-byte piece");
    constexpr int GROUPS = COUNT / 4;
    // Lane addresses row lane % 8 of matrix lane / 8: group 2 G + lane / 16 (x2: lanes 0-15
    // address, group 2 G). Rows 8 apart share the swizzle, so a group is 1024 bytes on.
    const int m = lane / 8;
    const std::uint32_t addr =
        ptx::smem_addr(tile) + std::uint32_t(swizzled<kSwizzleBytes>(8 * (m / 2) + lane % 8, 32 * warp + 16 * (m % 2)));
    [&]<int... G>(std::integer_sequence<int, G...>) {
      ([&] {
        constexpr int jj = 2 * G, i = FIRST + 4 * jj;
        constexpr std::uint32_t group = jj * 8 * kSwizzleBytes;
        if constexpr (jj + 1 < GROUPS)
          ptx::stmatrix_x4<true>(addr + group, packed(acc[i], acc[i + 1]), packed(acc[i + 2], acc[i + 3]),
                                 packed(acc[i + 4], acc[i + 5]), packed(acc[i + 6], acc[i + 7]));
        else
          ptx::stmatrix_x2_trans(addr + group, packed(acc[i], acc[i + 1]), packed(acc[i + 2], acc[i + 3]));
      }(), ...);
    }(std::make_integer_sequence<int, (GROUPS + 1) / 2>{});
  }

  // Notify::at_once: runs the hook on every thread once this warpgroup's stores are
  // complete in global memory.
  template <class Hook>
  __device__ static void notify_at_once(const Hook& hook, const TileInfo& info, int wg) {
    if (info.thread == 0) wait_for_stores();
    ptx::named_barrier_sync(1 + wg, kWarpgroupThreads);
    hook.after_tile(info);
  }

  // Notify::during_next_tile, on thread 0: the stores of the warpgroup's part of `tile`
  // (the last it issued) are waited for, then published.
  template <class Hook>
  __device__ static void publish(const Hook& hook, int tile, int wg) {
    wait_for_stores();
    hook.publish(tile, wg);
  }

  // On the thread that issued them: every TMA store complete in global memory, and
  // ordered before what the thread does next in the generic proxy.
  __device__ static void wait_for_stores() {
    cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
    cuda::ptx::fence_proxy_async(cuda::ptx::space_global);
  }

  // Before the block exits: staging tiles must outlive the stores reading them. Stores
  // a hook pushed to peers are waited for in full, and made visible to the generic proxy,
  // so that the barrier after the kernel orders them before its release.
  template <class Hook>
  __device__ static void drain(int t) {
    if (t != 0) return;
    if constexpr (Hook::kPushesChunks) {
      wait_for_stores();
    } else {
      cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
    }
  }
};

}  // namespace symm::gemm
