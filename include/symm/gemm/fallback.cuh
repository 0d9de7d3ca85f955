#pragma once
// The portable GEMM (sm_80 and later): mma.sync m16n8k16 tensor-core tiles fed through a
// multi-stage shared-memory ring. Used where TMA cannot describe the operands (rows not
// 16-byte aligned, ...), on GPUs without wgmma, and when SYMM_GEMM_FORCE_FALLBACK=1.
//
// kAligned: operands are 16-byte aligned with ld % 8 == 0, so tiles arrive by cp.async
// (zero-filled past the edges); otherwise element by element with bounds checks.
#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

#include "symm/device/ptx/gemm_mma_sync.cuh"
#include "symm/gemm/config.hpp"
#include "symm/gemm/element.cuh"
#include "symm/gemm/params.hpp"

namespace symm::gemm {

template <class Cfg, class In, class Out, BLayout BL, bool kAligned>
struct FallbackGemm {
  static constexpr int A_BYTES = Cfg::BLK_M * Cfg::BLK_K * 2;  // (BLK_M, BLK_K): rows of 128 B
  static constexpr int B_BYTES = Cfg::BLK_N * Cfg::BLK_K * 2;  // nk: (BLK_N, BLK_K); kn: (BLK_K, BLK_N)
  static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
  static constexpr int MI = Cfg::WARP_M / 16, NI = Cfg::WARP_N / 8;  // mma tiles per warp
  static constexpr int K_STEPS = Cfg::BLK_K / 16;                   // k16 steps per stage

  // 16-byte unit `chunk` of row `row`, swizzled so that the 8 rows ldmatrix reads (and
  // the 8 units a quarter-warp of cp.async writes) fall in 8 different bank groups.
  static_assert(Cfg::BLK_K * 2 == 128, "K-major rows are one 128-byte swizzle row");
  __device__ static int k_major_offset(int row, int chunk) {  // rows of BLK_K = 64 elements
    return row * Cfg::BLK_K * 2 + ((chunk ^ (row & 7)) << 4);
  }
  __device__ static int kn_offset(int k, int chunk) {  // rows of BLK_N elements
    return k * Cfg::BLK_N * 2 + ((chunk ^ (k & 7)) << 4);
  }

  // 8 elements from src, of which the first `valid` exist (none if <= 0) -> 16 bytes at dst.
  // `any` is a valid address for the cp.async that reads nothing.
  __device__ static void load_chunk(std::uint8_t* dst, const In* src, int valid, const In* any) {
    if constexpr (kAligned) {
      const int bytes = valid <= 0 ? 0 : valid < 8 ? 2 * valid : 16;
      ptx::cp_async_16_zfill(ptx::smem_addr(dst), bytes > 0 ? src : any, bytes);
    } else {
      alignas(16) In v[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = i < valid ? src[i] : In(0.f);
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(v);
    }
  }

  // This thread's column of 16-byte chunks of one operand tile (ROWS x ROW_CHUNKS chunks):
  // unit t % ROW_CHUNKS of rows t / ROW_CHUNKS + j * ROW_STEP. ROW_STEP is a multiple of 8,
  // so every chunk has chunk 0's swizzle and lies j * ROW_STEP rows after it in smem.
  // K_ROWS: K runs along the rows (kn B), else along the columns (A, nk B).
  template <int ROWS, int ROW_CHUNKS, bool K_ROWS>
  struct Column {
    static constexpr int ROW_STEP = Cfg::THREADS / ROW_CHUNKS, CHUNKS = ROWS / ROW_STEP;
    static_assert(ROW_STEP % 8 == 0 && ROWS % ROW_STEP == 0, "whole swizzle atoms per chunk row");
    const In* src;      // chunk 0 of the next k-tile
    std::int64_t step;  // ROW_STEP matrix rows
    int rows, cols;     // matrix rows / columns from chunk 0's first element on
    int smem;           // chunk 0's offset in the tile

    // Tile at (row0, col0) of an nrows x ncols matrix.
    __device__ Column(const In* g, std::int64_t ld, int row0, int col0, int nrows, int ncols) {
      const int row = threadIdx.x / ROW_CHUNKS, unit = threadIdx.x % ROW_CHUNKS;
      src = g + (row0 + row) * ld + col0 + unit * 8;
      step = ROW_STEP * ld;
      rows = nrows - row0 - row;
      cols = ncols - col0 - unit * 8;
      smem = K_ROWS ? kn_offset(row, unit) : k_major_offset(row, unit);
    }
    // Chunks [j0, j1) of the next k-tile into `tile`. kWhole: the caller knows the whole
    // k-tile lies inside the matrix, so no bounds are computed (in a tile's mainloop they
    // cost more instructions than the mmas they feed).
    template <bool kWhole>
    __device__ void load(std::uint8_t* tile, int j0, int j1, const In* any) const {
      const In* s = src + j0 * step;
      if constexpr (kAligned && kWhole) {
#pragma unroll
        for (int j = j0; j < j1; ++j, s += step)
          ptx::cp_async_16_zfill(ptx::smem_addr(tile + smem + j * ROW_STEP * (ROW_CHUNKS * 16)), s, 16);
      } else if constexpr (kAligned) {
#pragma unroll
        for (int j = j0; j < j1; ++j, s += step)
          load_chunk(tile + smem + j * ROW_STEP * (ROW_CHUNKS * 16), s, j * ROW_STEP < rows ? cols : 0, any);
      } else {  // element-wise loads: unrolled, they would need more registers than there are
#pragma unroll 1
        for (int j = j0; j < j1; ++j, s += step)
          load_chunk(tile + smem + j * ROW_STEP * (ROW_CHUNKS * 16), s, j * ROW_STEP < rows ? cols : 0, any);
      }
    }
    __device__ void advance() {
      if constexpr (K_ROWS) {
        src += CHUNKS * step, rows -= ROWS;
      } else {
        src += Cfg::BLK_K, cols -= Cfg::BLK_K;
      }
    }
  };

  // A stage's loads, spread over k16 steps 0 .. PARTS - 1 of a k-tile: part `part` is this
  // thread's chunks [part * PER_PART, (part + 1) * PER_PART) of A's column then B's.
  using AColumn = Column<Cfg::BLK_M, Cfg::BLK_K / 8, false>;
  using BColumn = std::conditional_t<BL == BLayout::nk, Column<Cfg::BLK_N, Cfg::BLK_K / 8, false>,
                                     Column<Cfg::BLK_K, Cfg::BLK_N / 8, true>>;
  static constexpr int PARTS = K_STEPS - 1;
  static constexpr int PER_PART = (AColumn::CHUNKS + BColumn::CHUNKS + PARTS - 1) / PARTS;
  struct Loader {
    AColumn a;
    BColumn b;
    const In *any_a, *any_b;

    template <bool kWhole = false>
    __device__ void load(std::uint8_t* stage, int part) const {
      const int lo = part * PER_PART, hi = lo + PER_PART, na = AColumn::CHUNKS;
      a.template load<kWhole>(stage, lo, hi < na ? hi : na, any_a);
      b.template load<kWhole>(stage + A_BYTES, lo > na ? lo - na : 0,
                              hi - na < BColumn::CHUNKS ? hi - na : BColumn::CHUNKS, any_b);
    }
    __device__ void advance() { a.advance(), b.advance(); }
  };

  // One k16 step's A and B fragments of this warp.
  struct Frags {
    std::uint32_t a[MI][4], b[NI][2];
  };
  // ldmatrix: lane l addresses row l % 8 of 8x8 matrix l / 8; a_lane / b_lane are its
  // offsets at k16 step 0 (and nj = 0). Moving a k-major lane by 2 ks 16-byte units XORs its
  // offset with ks << 5 (rows 16 apart share the swizzle); a kn lane moves by 2 nj units,
  // within the 8 units (one swizzle row) of its warp's 64 columns.
  static_assert(BL == BLayout::nk || Cfg::WARP_N == 64, "a kn warp's columns are one swizzle row");
  __device__ static void load_frags(Frags& f, std::uint32_t stage, int ks, int a_lane, int b_lane) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
      ptx::ldmatrix_x4(f.a[mi], stage + (a_lane ^ (ks << 5)) + mi * 16 * Cfg::BLK_K * 2);
#pragma unroll
    for (int nj = 0; nj < NI / 2; ++nj) {
      std::uint32_t x[4];
      if constexpr (BL == BLayout::nk)
        ptx::ldmatrix_x4(x, stage + A_BYTES + (b_lane ^ (ks << 5)) + nj * 16 * Cfg::BLK_K * 2);
      else
        ptx::ldmatrix_x4_trans(x, stage + A_BYTES + (b_lane ^ (nj << 5)) + ks * 16 * Cfg::BLK_N * 2);
      f.b[2 * nj][0] = x[0], f.b[2 * nj][1] = x[1], f.b[2 * nj + 1][0] = x[2], f.b[2 * nj + 1][1] = x[3];
    }
  }

  __device__ static void mma(float (&acc)[MI][NI][4], const Frags& f) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < NI; ++ni)
        ptx::mma_m16n8k16<kIsFp16<In>>(acc[mi][ni], f.a[mi], f.b[ni][0], f.b[ni][1]);
  }

  __device__ static void store(const float (&acc)[MI][NI][4], const FallbackParams& p, int row0,
                               int col0, int lane) {
    Out* c = static_cast<Out*>(p.c);
    const bool pairs = p.ldc % 2 == 0 &&
                       reinterpret_cast<std::uintptr_t>(c) % sizeof(typename Converted<Out>::Pair) == 0;
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
            *reinterpret_cast<typename Converted<Out>::Pair*>(dst) = Converted<Out>::pair(x, y);
          } else {
            dst[0] = Out(x);
            if (col + 1 < p.n) dst[1] = Out(y);
          }
        }
  }

  // Pipeline: cp.async fills the ring STAGES - 1 k-tiles ahead of the mmas, and the
  // fragments of k16 step ks + 1 load while the mmas of step ks run (buffer ks % 2).
  //
  // Commit group g carries k-tile g (empty past the last one). Tile kt + STAGES - 1 is
  // loaded during steps 0 .. PARTS - 1 of tile kt and committed before the barrier of tile
  // kt, which sits in its last step, ahead of the loads of tile kt + 1's first fragments:
  // there, groups 0 .. kt + STAGES - 1 are committed, so at most STAGES - 2 pending means
  // tile kt + 1 has landed (for this thread; the barrier makes it every thread's). Tile
  // kt + STAGES - 1 goes to the slot of tile kt - 1, whose last fragments every warp
  // loaded before tile kt - 1's barrier, which precedes these writes. The unaligned path's
  // st.shared are ordered by the same barriers.
  // Split-K: every split publishes its fp32 partial, and the last of a tile's splits to
  // arrive adds them all in split order (the same sum whichever block is last), resets the
  // tile's counter for the next launch and returns true: it stores the tile.
  using Accumulators = float[MI][NI][4];
  __device__ static bool reduce_splits(Accumulators& acc, const FallbackParams& p, int tile, int split) {
    constexpr int VECS = MI * NI;  // float4s per thread, stored [vec][thread]: coalesced
    auto slot = [&](int s) {
      return reinterpret_cast<float4*>(p.splitk.partials) +
             (std::size_t(tile) * p.k_splits + s) * VECS * Cfg::THREADS + threadIdx.x;
    };
    float4* mine = slot(split);
#pragma unroll
    for (int v = 0; v < VECS; ++v)
      mine[v * Cfg::THREADS] = make_float4(acc[v / NI][v % NI][0], acc[v / NI][v % NI][1],
                                           acc[v / NI][v % NI][2], acc[v / NI][v % NI][3]);
    __shared__ int arrived;
    __syncthreads();  // every partial store before thread 0's release
    if (threadIdx.x == 0) {
      cuda::atomic_ref<int, cuda::thread_scope_device> count(p.splitk.counters[tile]);
      arrived = count.fetch_add(1, cuda::memory_order_acq_rel) + 1;
      if (arrived == p.k_splits) count.store(0, cuda::memory_order_relaxed);
    }
    __syncthreads();  // thread 0's acquire before every partial load
    if (arrived < p.k_splits) return false;
#pragma unroll
    for (int v = 0; v < VECS; ++v) acc[v / NI][v % NI][0] = acc[v / NI][v % NI][1] =
        acc[v / NI][v % NI][2] = acc[v / NI][v % NI][3] = 0.f;
    for (int s = 0; s < p.k_splits; ++s) {
      const float4* part = slot(s);
#pragma unroll
      for (int v = 0; v < VECS; ++v) {
        const float4 x = __ldcg(&part[v * Cfg::THREADS]);
        float(&a)[4] = acc[v / NI][v % NI];
        a[0] += x.x, a[1] += x.y, a[2] += x.z, a[3] += x.w;
      }
    }
    return true;
  }

  __device__ static void run(const FallbackParams& p, std::uint8_t* smem) {
    constexpr int STAGES = Cfg::STAGES;
    static_assert(K_STEPS % 2 == 0, "fragment buffer ks % 2 continues across tiles");
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / 8, r = lane % 8;
    const int wm = warp % Cfg::WARPS_M, wn = warp / Cfg::WARPS_M;
    const int m0 = blockIdx.y * Cfg::BLK_M, n0 = blockIdx.x * Cfg::BLK_N;
    // This split's k-tiles: an even share, the first (total % k_splits) one longer.
    const int total_k_tiles = int(ceil_div(p.k, Cfg::BLK_K)), split = blockIdx.z;
    const int share = total_k_tiles / p.k_splits, extra = total_k_tiles % p.k_splits;
    const int k_tiles = share + (split < extra), k0 = (split * share + min_int(split, extra)) * Cfg::BLK_K;
    const In* ga = static_cast<const In*>(p.a);
    const In* gb = static_cast<const In*>(p.b);

    Loader loader{AColumn(ga, p.lda, m0, k0, p.m, p.k),
                  BL == BLayout::nk ? BColumn(gb, p.ldb, n0, k0, p.n, p.k)
                                    : BColumn(gb, p.ldb, k0, n0, p.k, p.n),
                  ga, gb};
    const int a_lane = k_major_offset(wm * Cfg::WARP_M + (q % 2) * 8 + r, q / 2);
    const int b_lane = BL == BLayout::nk ? k_major_offset(wn * Cfg::WARP_N + (q / 2) * 8 + r, q % 2)
                                         : kn_offset((q % 2) * 8 + r, wn * Cfg::WARP_N / 8 + q / 2);
    const std::uint32_t ring = ptx::smem_addr(smem);

    Accumulators acc = {};
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < k_tiles)
#pragma unroll
        for (int part = 0; part < PARTS; ++part) loader.load(smem + s * STAGE_BYTES, part);
      ptx::cp_async_commit();
      loader.advance();
    }
    ptx::cp_async_wait<STAGES - 2>();
    __syncthreads();  // tile 0 landed

    Frags f[2];
    load_frags(f[0], ring, 0, a_lane, b_lane);
    int read = 0, write = STAGES - 1;  // slots of tile kt (kt + 1 from its barrier on), kt + STAGES - 1
    // One k-tile: its mmas, and (if `more`) the loads of tile kt + STAGES - 1, which with
    // kWhole lie inside the matrix.
    auto k_tile = [&]<bool kWhole>(bool more) {
#pragma unroll
      for (int ks = 0; ks < K_STEPS; ++ks) {
        if (ks == K_STEPS - 1) {
          ptx::cp_async_wait<STAGES - 2>();
          __syncthreads();  // tile kt + 1 landed; tile kt's slot is no longer read
          read = read == STAGES - 1 ? 0 : read + 1;
        }
        // After the last tile this reads a stale slot into fragments that go unused.
        load_frags(f[(ks + 1) % 2], ring + read * STAGE_BYTES, (ks + 1) % K_STEPS, a_lane, b_lane);
        if (ks < PARTS && more) loader.template load<kWhole>(smem + write * STAGE_BYTES, ks);
        if (ks == PARTS - 1) {
          ptx::cp_async_commit();
          loader.advance();
          write = write == STAGES - 1 ? 0 : write + 1;
        }
        mma(acc, f[ks % 2]);
      }
    };
    // A block inside M and N loads whole k-tiles up to the last one that K cuts.
    const bool inside = kAligned && m0 + Cfg::BLK_M <= p.m && n0 + Cfg::BLK_N <= p.n;
    const int whole_loads = min_int(k_tiles, inside ? (p.k - k0) / Cfg::BLK_K : 0);
    int kt = 0;
    for (; kt + STAGES - 1 < whole_loads; ++kt) k_tile.template operator()<true>(true);
    for (; kt < k_tiles; ++kt) k_tile.template operator()<false>(kt + STAGES - 1 < k_tiles);
    if (p.k_splits > 1 && !reduce_splits(acc, p, blockIdx.y * gridDim.x + blockIdx.x, split)) return;
    store(acc, p, m0 + wm * Cfg::WARP_M, n0 + wn * Cfg::WARP_N, lane);
  }
};

template <class Cfg, class In, class Out, BLayout BL, bool kAligned>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::BLOCKS_PER_SM)
    fallback_gemm_kernel(const FallbackParams p) {
  extern __shared__ __align__(128) std::uint8_t fallback_smem[];
  FallbackGemm<Cfg, In, Out, BL, kAligned>::run(p, fallback_smem);
}

}  // namespace symm::gemm
