#pragma once
// The portable GEMM (sm_80 and later): mma.sync m16n8k16 tensor-core tiles fed through a
// multi-stage shared-memory ring. Used where TMA cannot describe the operands (rows not
// 16-byte aligned, ...), on GPUs without wgmma, and when SYMM_GEMM_FORCE_FALLBACK=1.
//
// kAligned: operands are 16-byte aligned with ld % 8 == 0, so tiles arrive by cp.async
// (zero-filled past the edges); otherwise element by element with bounds checks.
#include <cstdint>

#include "symm/device/ptx/gemm_mma_sync.cuh"
#include "symm/gemm/config.hpp"
#include "symm/gemm/element.cuh"
#include "symm/gemm/params.hpp"

namespace symm::gemm {

template <class In, class Out, BLayout BL, bool kAligned>
struct FallbackGemm {
  using Cfg = FallbackConfig;
  static constexpr int A_BYTES = Cfg::BLK_M * Cfg::BLK_K * 2;  // (BLK_M, BLK_K): rows of 128 B
  static constexpr int B_BYTES = Cfg::BLK_N * Cfg::BLK_K * 2;  // nk: (BLK_N, BLK_K); kn: (BLK_K, BLK_N)
  static constexpr int MI = Cfg::WARP_M / 16, NI = Cfg::WARP_N / 8;  // mma tiles per warp

  // 16-byte unit `chunk` of row `row`, swizzled so that the 8 rows ldmatrix reads (and
  // the 8 units a quarter-warp of cp.async writes) fall in 8 different bank groups.
  static_assert(Cfg::BLK_K * 2 == 128, "K-major rows are one 128-byte swizzle row");
  __device__ static int k_major_offset(int row, int chunk) {  // rows of BLK_K = 64 elements
    return row * Cfg::BLK_K * 2 + ((chunk ^ (row & 7)) << 4);
  }
  __device__ static int kn_offset(int k, int chunk) {  // rows of BLK_N elements
    return k * Cfg::BLK_N * 2 + ((chunk ^ (k & 7)) << 4);
  }

  // 8 elements at (row, col) of a rows x cols operand -> 16 bytes of shared memory.
  __device__ static void load_chunk(std::uint8_t* smem, int offset, const In* g, std::int64_t ld,
                                    int row, int col, int rows, int cols) {
    const bool row_ok = row < rows;
    if constexpr (kAligned) {
      const int valid = row_ok ? (cols - col < 8 ? cols - col : 8) : 0;
      const In* src = valid > 0 ? g + row * ld + col : g;
      ptx::cp_async_16_zfill(ptx::smem_addr(smem + offset), src, valid > 0 ? valid * 2 : 0);
    } else {
      alignas(16) In v[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = row_ok && col + i < cols ? g[row * ld + col + i] : In(0.f);
      *reinterpret_cast<uint4*>(smem + offset) = *reinterpret_cast<const uint4*>(v);
    }
  }

  // Stage <- A rows [m0, m0 + BLK_M) and B columns [n0, n0 + BLK_N), K from k0.
  __device__ static void load_stage(const FallbackParams& p, std::uint8_t* a, std::uint8_t* b,
                                    int m0, int n0, int k0) {
    const In* ga = static_cast<const In*>(p.a);
    const In* gb = static_cast<const In*>(p.b);
    constexpr int K_CHUNKS = Cfg::BLK_K / 8;
    for (int c = threadIdx.x; c < Cfg::BLK_M * K_CHUNKS; c += Cfg::THREADS) {
      const int row = c / K_CHUNKS, ch = c % K_CHUNKS;
      load_chunk(a, k_major_offset(row, ch), ga, p.lda, m0 + row, k0 + ch * 8, p.m, p.k);
    }
    if constexpr (BL == BLayout::nk) {
      for (int c = threadIdx.x; c < Cfg::BLK_N * K_CHUNKS; c += Cfg::THREADS) {
        const int row = c / K_CHUNKS, ch = c % K_CHUNKS;
        load_chunk(b, k_major_offset(row, ch), gb, p.ldb, n0 + row, k0 + ch * 8, p.n, p.k);
      }
    } else {
      constexpr int N_CHUNKS = Cfg::BLK_N / 8;
      for (int c = threadIdx.x; c < Cfg::BLK_K * N_CHUNKS; c += Cfg::THREADS) {
        const int k = c / N_CHUNKS, ch = c % N_CHUNKS;
        load_chunk(b, kn_offset(k, ch), gb, p.ldb, k0 + k, n0 + ch * 8, p.k, p.n);
      }
    }
  }

  // acc += this warp's (WARP_M, WARP_N) share of one stage.
  __device__ static void compute_stage(float (&acc)[MI][NI][4], const std::uint8_t* a,
                                       const std::uint8_t* b, int wm, int wn, int lane) {
    const int q = lane / 8, r = lane % 8;
#pragma unroll
    for (int ks = 0; ks < Cfg::BLK_K / 16; ++ks) {
      std::uint32_t af[MI][4], bf[NI][2];
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
        ptx::ldmatrix_x4(af[mi], ptx::smem_addr(a + k_major_offset(wm * Cfg::WARP_M + mi * 16 +
                                                                     (q % 2) * 8 + r,
                                                                 ks * 2 + q / 2)));
#pragma unroll
      for (int nj = 0; nj < NI / 2; ++nj) {
        std::uint32_t x[4];
        const int n = wn * Cfg::WARP_N + nj * 16 + (q / 2) * 8;
        if constexpr (BL == BLayout::nk)
          ptx::ldmatrix_x4(x, ptx::smem_addr(b + k_major_offset(n + r, ks * 2 + q % 2)));
        else
          ptx::ldmatrix_x4_trans(x, ptx::smem_addr(b + kn_offset(ks * 16 + (q % 2) * 8 + r, n / 8)));
        bf[2 * nj][0] = x[0], bf[2 * nj][1] = x[1], bf[2 * nj + 1][0] = x[2], bf[2 * nj + 1][1] = x[3];
      }
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
          ptx::mma_m16n8k16<kIsFp16<In>>(acc[mi][ni], af[mi], bf[ni][0], bf[ni][1]);
    }
  }

  __device__ static void store(const float (&acc)[MI][NI][4], const FallbackParams& p, int row0,
                               int col0, int lane) {
    Out* c = static_cast<Out*>(p.c);
    const bool pairs = p.ldc % 2 == 0 &&
                       reinterpret_cast<std::uintptr_t>(c) % sizeof(typename Packed2<Out>::type) == 0;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < NI; ++ni)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int row = row0 + mi * 16 + lane / 4 + 8 * half;
          const int col = col0 + ni * 8 + 2 * (lane % 4);
          if (row >= p.m || col >= p.n) continue;
          const float x = acc[mi][ni][2 * half], y = acc[mi][ni][2 * half + 1];
          Out* dst = c + std::int64_t(row) * p.ldc + col;
          if (pairs && col + 1 < p.n) {
            *reinterpret_cast<typename Packed2<Out>::type*>(dst) = Packed2<Out>::pack(x, y);
          } else {
            dst[0] = Out(x);
            if (col + 1 < p.n) dst[1] = Out(y);
          }
        }
  }

  __device__ static void run(const FallbackParams& p, std::uint8_t* smem) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = warp % Cfg::WARPS_M, wn = warp / Cfg::WARPS_M;
    const int m0 = blockIdx.y * Cfg::BLK_M, n0 = blockIdx.x * Cfg::BLK_N;
    const int k_tiles = int(ceil_div(p.k, Cfg::BLK_K));
    auto a_stage = [&](int s) { return smem + s * (A_BYTES + B_BYTES); };
    auto b_stage = [&](int s) { return smem + s * (A_BYTES + B_BYTES) + A_BYTES; };

    float acc[MI][NI][4] = {};
    for (int s = 0; s < Cfg::STAGES - 1; ++s) {
      if (s < k_tiles) load_stage(p, a_stage(s), b_stage(s), m0, n0, s * Cfg::BLK_K);
      ptx::cp_async_commit();
    }
    for (int kt = 0; kt < k_tiles; ++kt) {
      ptx::cp_async_wait<Cfg::STAGES - 2>();
      __syncthreads();  // stage kt landed; stage kt - 1 is no longer read by anyone
      const int next = kt + Cfg::STAGES - 1;
      if (next < k_tiles)
        load_stage(p, a_stage(next % Cfg::STAGES), b_stage(next % Cfg::STAGES), m0, n0,
                   next * Cfg::BLK_K);
      ptx::cp_async_commit();
      compute_stage(acc, a_stage(kt % Cfg::STAGES), b_stage(kt % Cfg::STAGES), wm, wn, lane);
    }
    store(acc, p, m0 + wm * Cfg::WARP_M, n0 + wn * Cfg::WARP_N, lane);
  }
};

template <class In, class Out, BLayout BL, bool kAligned>
__global__ void __launch_bounds__(FallbackConfig::THREADS, 1)
    fallback_gemm_kernel(const FallbackParams p) {
  extern __shared__ __align__(128) std::uint8_t fallback_smem[];
  FallbackGemm<In, Out, BL, kAligned>::run(p, fallback_smem);
}

}  // namespace symm::gemm
