#pragma once
// The tile scheduler: which output tiles, and which K ranges of them, each block computes.
// Host and device share it, so a fused kernel's communication blocks walk tiles in exactly
// the order the GEMM blocks produce them (tile id -> flag index).
//
// Each block is one worker. Output tiles are numbered in grouped order: gsize_m tile rows
// form a group, walked column by column, so consecutive tiles reuse B columns and a band
// of A rows in L2. Three decompositions of the work:
//   data-parallel: worker w takes tiles w, w + workers, ... whole;
//   split-K:       each tile is k_splits consecutive units along K (splitk.cuh), or, with
//                  dp_tiles > 0 (a multiple of the workers), only the tiles after the
//                  dp_tiles whole ones: the part-empty last wave of a long-K problem is
//                  cut along K into units that fill the workers, while each unit keeps
//                  its tile's K range in step with the tiles that share its A rows and B
//                  columns (units of one split start at the same K), so L2 still serves
//                  them (stream-K's ranges start each tile at another K);
//   stream-K:      work tiles [0, dp_tiles) go whole, data-parallel, as above; the
//                  remaining tiles x K iterations are cut into `workers` equal contiguous
//                  ranges; a tile spread over several workers is finished by the one
//                  holding its first K iteration (splitk.cuh). With dp_tiles a multiple of
//                  the workers, every worker has the same data-parallel share first, and
//                  the last, partial wave of tiles no longer idles most of the GPU.
#include <cstdint>

#if defined(__CUDACC__)
#define SYMM_GEMM_HD __host__ __device__ __forceinline__
#else
#define SYMM_GEMM_HD inline
#endif

namespace symm::gemm {

SYMM_GEMM_HD constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
SYMM_GEMM_HD constexpr int min_int(int a, int b) { return a < b ? a : b; }

// Block `rank` of a cluster of cluster_m x cluster_n blocks (config.hpp) sits at row
// `m`, column `n` of it: ranks run down the cluster's columns.
struct ClusterSeat {
  int m, n;
};
SYMM_GEMM_HD constexpr ClusterSeat cluster_seat(int rank, int cluster_m) {
  return ClusterSeat{rank % cluster_m, rank / cluster_m};
}
SYMM_GEMM_HD constexpr int cluster_rank(ClusterSeat seat, int cluster_m) { return seat.m + seat.n * cluster_m; }

// The tile row (column) that the block at seat row (column) `seat` computes in a unit at
// unit row (column) `unit`: a unit is the cluster's tiles side by side, in seat order.
SYMM_GEMM_HD constexpr int cluster_tile(int unit, int cluster_extent, int seat) {
  return unit * cluster_extent + seat;
}

struct WorkUnit {
  int tile;            // output tile id in grouped order (flag index for fused kernels)
  int tile_m, tile_n;  // tile coordinates: rows [tile_m * BLK_M, ...), columns [tile_n * BLK_N, ...)
  int split;           // split-K: 0 .. k_splits - 1
  int k_begin, k_end;  // K range in BLK_K iterations
};

// Where a worker is in its list of units: the next data-parallel tile of a stream-K
// schedule (dp), then positions [pos, end) (units, or stream-K iterations).
struct WorkCursor {
  int pos, end, dp;
};

struct TileScheduler {
  int tiles_m = 0, tiles_n = 0;
  int k_iters = 0;           // ceil(K / BLK_K)
  int k_splits = 1;          // split-K factor, 1 <= k_splits <= k_iters
  int gsize_m = 1;           // tile rows per group
  int stream_k_workers = 0;  // > 0: stream-K over this many workers (then k_splits == 1)
  int dp_tiles = 0;          // stream-K and split-K: leading tiles done whole (a multiple of workers)

  static TileScheduler make(std::int64_t m, std::int64_t n, std::int64_t k, int blk_m, int blk_n,
                            int blk_k, int k_splits, int gsize_m) {
    return TileScheduler{int(ceil_div(m, blk_m)), int(ceil_div(n, blk_n)), int(ceil_div(k, blk_k)),
                         k_splits,  gsize_m < 1 ? 1 : gsize_m, 0, 0};
  }

  SYMM_GEMM_HD int num_tiles() const { return tiles_m * tiles_n; }
  // Units of data-parallel and split-K schedules: the whole tiles, then the split ones'.
  SYMM_GEMM_HD int num_units() const { return dp_tiles + split_tiles() * k_splits; }
  // Tiles cut along K (split-K), or spread over stream-K ranges: those after the whole ones.
  SYMM_GEMM_HD int split_tiles() const { return num_tiles() - dp_tiles; }
  SYMM_GEMM_HD bool stream_k() const { return stream_k_workers > 0; }
  SYMM_GEMM_HD std::int64_t total_iters() const { return std::int64_t(num_tiles()) * k_iters; }
  // Iterations cut into stream-K ranges: those of the tiles after the data-parallel ones.
  SYMM_GEMM_HD std::int64_t stream_k_iters() const { return std::int64_t(split_tiles()) * k_iters; }

  // Tile `tile` of the grouped order -> (tile_m, tile_n).
  SYMM_GEMM_HD void tile_coords(int tile, int& tile_m, int& tile_n) const {
    const int tiles_per_group = gsize_m * tiles_n;
    const int first_m = (tile / tiles_per_group) * gsize_m;
    const int group_rows = min_int(tiles_m - first_m, gsize_m);
    const int in_group = tile % tiles_per_group;
    tile_m = first_m + in_group % group_rows;
    tile_n = in_group / group_rows;
  }

  // K iterations of split s: an even share, the first (k_iters % k_splits) one longer.
  SYMM_GEMM_HD void k_range(int split, int& begin, int& end) const {
    const int base = k_iters / k_splits, extra = k_iters % k_splits;
    begin = split * base + min_int(split, extra);
    end = begin + base + (split < extra ? 1 : 0);
  }

  // Stream-K: worker w owns iterations [stream_k_begin(w), stream_k_begin(w + 1)) of the
  // stream-K tiles x K iterations, and stream_k_worker(i) is the worker owning iteration i.
  SYMM_GEMM_HD int stream_k_begin(int worker) const {
    const std::int64_t q = stream_k_iters() / stream_k_workers, r = stream_k_iters() % stream_k_workers;
    return int(worker * q + (worker < r ? worker : r));
  }
  SYMM_GEMM_HD int stream_k_worker(int iter) const {
    const std::int64_t q = stream_k_iters() / stream_k_workers, r = stream_k_iters() % stream_k_workers;
    return int(iter < r * (q + 1) ? iter / (q + 1) : r + (iter - r * (q + 1)) / q);
  }
  // The worker holding the last K iteration of stream-K tile `tile`.
  SYMM_GEMM_HD int stream_k_last_worker(int tile) const {
    return stream_k_worker((tile - dp_tiles + 1) * k_iters - 1);
  }

  SYMM_GEMM_HD WorkCursor first(int worker, int workers) const {
    if (stream_k()) return WorkCursor{stream_k_begin(worker), stream_k_begin(worker + 1), worker};
    return WorkCursor{worker, worker < workers ? num_units() : 0, 0};
  }

  // The next unit of the cursor's worker.
  SYMM_GEMM_HD bool next(WorkCursor& c, int workers, WorkUnit& w) const {
    int tile = 0;
    if (stream_k() && c.dp < dp_tiles) {
      tile = c.dp;
      c.dp += workers;
      w.split = 0;
      w.k_begin = 0;
      w.k_end = k_iters;
    } else if (c.pos >= c.end) {
      return false;
    } else if (stream_k()) {
      tile = dp_tiles + c.pos / k_iters;
      w.split = 0;
      w.k_begin = c.pos % k_iters;
      w.k_end = min_int(k_iters, w.k_begin + (c.end - c.pos));
      c.pos += w.k_end - w.k_begin;
    } else if (c.pos < dp_tiles) {
      tile = c.pos;
      w.split = 0;
      w.k_begin = 0;
      w.k_end = k_iters;
      c.pos += workers;
    } else {
      tile = dp_tiles + (c.pos - dp_tiles) / k_splits;
      w.split = (c.pos - dp_tiles) % k_splits;
      k_range(w.split, w.k_begin, w.k_end);
      c.pos += workers;
    }
    w.tile = tile;
    tile_coords(tile, w.tile_m, w.tile_n);
    return true;
  }
};

}  // namespace symm::gemm
