#pragma once
// The WGMMA consumer mainloop: one warpgroup accumulates its (WG_M, WG_N) part of a
// tile (its rows, cooperative; all of it, ping-pong; its columns, transposed, swapped:
// config.hpp) over a K range, stage by stage, and hands each stage back to the producer
// as soon as its wgmmas have finished reading it.
#include <type_traits>

#include "symm/device/ptx/gemm_mbarrier.cuh"
#include "symm/device/ptx/wgmma.cuh"
#include "symm/gemm/element.cuh"
#include "symm/gemm/pipeline.cuh"

namespace symm::gemm {

template <class Cfg, class In, BLayout BL>
struct WgmmaMainloop {
  using Smem = GemmSmem<Cfg, In>;
  static constexpr int M_BLOCKS = Cfg::ACC_BLOCKS;  // wgmma results per warpgroup (config.hpp)
  static constexpr int ACC = Cfg::ACC;              // fp32 accumulators per thread of each
  static constexpr int K_STEPS = Cfg::BLK_K / 16;  // k16 wgmmas per stage
  // kn tiles not a multiple of 64 wide: a wgmma over the 64-column boxes (HEAD columns),
  // another over the narrower last box (config.hpp, kn_tail_cols).
  static constexpr int TAIL = BL == BLayout::kn ? kn_tail_cols(Cfg::BLK_N) : 0;
  static constexpr int HEAD = Cfg::BLK_N - TAIL;
  static constexpr int TAIL_ROW_BYTES = TAIL * 2;
  static_assert(TAIL == 0 || TAIL == 16 || TAIL == 32, "a K x N tail box is 32 or 64 bytes wide");
  static constexpr int TRANS_B = BL == BLayout::kn ? 1 : 0;
  // Swapped tiles (config.hpp): B's part is the wgmma's A (M-major where B is K x N), A's
  // rows its K-major B, BLK_M of them.
  using Mma = std::conditional_t<Cfg::SWAPPED, ptx::Wgmma<Cfg::BLK_M, kIsFp16<In>, TRANS_B, 0>,
                                 ptx::Wgmma<HEAD, kIsFp16<In>, 0, TRANS_B>>;
  using TailMma = ptx::Wgmma<TAIL, kIsFp16<In>, 0, TRANS_B>;  // used only where TAIL > 0
  using Accumulators = float[M_BLOCKS][ACC];

  // A rows [row, row + 64) of a stage, k16 step ks: rows are 128 B apart, 8-row swizzle
  // atoms 1024 B apart; a k16 step is 32 B further along the (swizzled) row.
  __device__ static std::uint64_t a_desc(const std::uint8_t* stage, int row, int ks) {
    return ptx::wgmma_desc(ptx::smem_addr(stage + row * kSwizzleBytes + ks * 32), 16, 1024, kSwizzleBytes);
  }

  // B, k16 step ks. nk: like A. kn: k16 rows start 16 * 128 B further; 64-column chunks
  // (one TMA box each) are BLK_K * 128 B apart.
  __device__ static std::uint64_t b_desc(const std::uint8_t* stage, int ks) {
    if constexpr (BL == BLayout::nk)
      return ptx::wgmma_desc(ptx::smem_addr(stage + ks * 32), 16, 1024, kSwizzleBytes);
    else
      return ptx::wgmma_desc(ptx::smem_addr(stage + ks * 16 * kSwizzleBytes), Cfg::BLK_K * kSwizzleBytes,
                             1024, kSwizzleBytes);
  }

  // kn's tail box, after the 64-column chunks: rows of TAIL_ROW_BYTES, one chunk.
  __device__ static std::uint64_t b_tail_desc(const std::uint8_t* stage, int ks) {
    const std::uint8_t* tail = stage + HEAD / 64 * Cfg::BLK_K * kSwizzleBytes;
    return ptx::wgmma_desc(ptx::smem_addr(tail + ks * 16 * TAIL_ROW_BYTES), Cfg::BLK_K * TAIL_ROW_BYTES,
                           8 * TAIL_ROW_BYTES, TAIL_ROW_BYTES);
  }

  __device__ static void zero(Accumulators& acc) {
#pragma unroll
    for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
      for (int i = 0; i < ACC; ++i) acc[mb][i] = 0.f;
  }

  // acc += A[rows of warpgroup wg] * B over k_tiles stages, starting at ring position pos.
  // One stage's wgmmas stay in flight while the next stage is issued; a stage goes back
  // to the producer once the group that read it has completed. `turn_over`: arrived on
  // once the last stage has landed (ping-pong: the other consumer's go; else null).
  // `midway()` runs on every thread once, while the wgmmas of the unit's third k-tile (its
  // last, if it has fewer) are in flight: work that may wait without idling the tensor cores.
  template <class Midway>
  __device__ static void run(Accumulators& acc, Smem& s, RingPos<Cfg::STAGES>& pos, int k_tiles,
                             int wg, bool leader, std::uint64_t* turn_over, const Midway& midway) {
    const int midway_kt = (k_tiles < 3 ? k_tiles : 3) - 1;
    int reading = -1;  // stage whose wgmmas may still be in flight
    for (int kt = 0; kt < k_tiles; ++kt) {
      ptx::mbarrier_wait(&s.full[pos.stage], pos.phase);
      if (turn_over && leader && kt == k_tiles - 1) ptx::mbarrier_arrive(turn_over);
      ptx::wgmma_fence();
#pragma unroll
      for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
        for (int ks = 0; ks < K_STEPS; ++ks) {
          if constexpr (Cfg::SWAPPED) {
            // Block mb of consumer wg: 64 rows of an N x K B, or one 64-column box of a K x N one.
            const std::uint8_t* b_part = s.b[pos.stage] + (wg * M_BLOCKS + mb) *
                                                              (BL == BLayout::nk ? 64 : Cfg::BLK_K) * kSwizzleBytes;
            Mma::mma(acc[mb], b_desc(b_part, ks), a_desc(s.a[pos.stage], 0, ks));
          } else {
            const std::uint64_t a = a_desc(s.a[pos.stage], wg * Cfg::WG_ROW_STRIDE + mb * 64, ks);
            if constexpr (TAIL > 0) {
              Mma::mma(ptx::accumulator_slice<HEAD / 2, 0>(acc[mb]), a, b_desc(s.b[pos.stage], ks));
              TailMma::mma(ptx::accumulator_slice<TAIL / 2, HEAD / 2>(acc[mb]), a, b_tail_desc(s.b[pos.stage], ks));
            } else {
              Mma::mma(acc[mb], a, b_desc(s.b[pos.stage], ks));
            }
          }
        }
      ptx::wgmma_commit_group();
      if (kt == midway_kt) midway();
      ptx::wgmma_wait_group<1>();
      if (reading >= 0) s.release(reading);
      reading = pos.stage;
      pos.advance();
    }
    ptx::wgmma_wait_group<0>();
#pragma unroll
    for (int mb = 0; mb < M_BLOCKS; ++mb) ptx::wgmma_fence_operands(acc[mb]);
    if (reading >= 0) s.release(reading);
  }
};

}  // namespace symm::gemm
