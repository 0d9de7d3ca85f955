#pragma once
// The tile scheduler: work unit id -> (output tile, K range). Host and device share it,
// so a fused kernel's communication blocks walk tiles in exactly the order the GEMM
// blocks produce them (tile id -> flag index).
//
// Tiles are numbered in grouped order: gsize_m rows of tiles form a group, walked column
// by column, so consecutive tiles reuse the same B columns and a band of A rows in L2.
// With k_splits > 1 each tile is split into k_splits consecutive work units along K;
// consecutive units run on consecutive blocks at the same time, and the last split of
// a tile adds the others' partial sums (see splitk.cuh).
#include <cstdint>

#if defined(__CUDACC__)
#define SYMM_GEMM_HD __host__ __device__ __forceinline__
#else
#define SYMM_GEMM_HD inline
#endif

namespace symm::gemm {

SYMM_GEMM_HD constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

struct WorkUnit {
  int tile;            // position in grouped order (flag index for fused kernels)
  int tile_m, tile_n;  // tile coordinates: rows [tile_m * BLK_M, ...), columns [tile_n * BLK_N, ...)
  int split;           // 0 .. k_splits - 1
  int k_begin, k_end;  // K range in BLK_K iterations
};

struct TileScheduler {
  int tiles_m = 0, tiles_n = 0;
  int k_iters = 0;   // ceil(K / BLK_K)
  int k_splits = 1;  // 1 <= k_splits <= k_iters
  int gsize_m = 1;

  static TileScheduler make(std::int64_t m, std::int64_t n, std::int64_t k, int blk_m, int blk_n,
                            int blk_k, int k_splits, int gsize_m) {
    return TileScheduler{int(ceil_div(m, blk_m)), int(ceil_div(n, blk_n)), int(ceil_div(k, blk_k)),
                         k_splits, gsize_m < 1 ? 1 : gsize_m};
  }

  SYMM_GEMM_HD int num_tiles() const { return tiles_m * tiles_n; }
  SYMM_GEMM_HD int num_units() const { return num_tiles() * k_splits; }

  // Tile `tile` of the grouped order -> (tile_m, tile_n).
  SYMM_GEMM_HD void tile_coords(int tile, int& tile_m, int& tile_n) const {
    const int tiles_per_group = gsize_m * tiles_n;
    const int first_m = (tile / tiles_per_group) * gsize_m;
    const int group_rows = tiles_m - first_m < gsize_m ? tiles_m - first_m : gsize_m;
    const int in_group = tile % tiles_per_group;
    tile_m = first_m + in_group % group_rows;
    tile_n = in_group / group_rows;
  }

  // K iterations of split s: an even share, the first (k_iters % k_splits) one longer.
  SYMM_GEMM_HD void k_range(int split, int& begin, int& end) const {
    const int base = k_iters / k_splits, extra = k_iters % k_splits;
    begin = split * base + (split < extra ? split : extra);
    end = begin + base + (split < extra ? 1 : 0);
  }

  SYMM_GEMM_HD WorkUnit unit(int u) const {
    WorkUnit w;
    w.tile = u / k_splits;
    w.split = u % k_splits;
    tile_coords(w.tile, w.tile_m, w.tile_n);
    k_range(w.split, w.k_begin, w.k_end);
    return w;
  }
};

}  // namespace symm::gemm
