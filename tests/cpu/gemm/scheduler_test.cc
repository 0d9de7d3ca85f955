// The tile scheduler without a GPU: grouped order, every element of C and every K
// iteration covered once (data-parallel, clusters, split-K, stream-K).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "fake_problem.hpp"
#include "symm/gemm/plan.hpp"

namespace symm::gemm {
namespace {

using test::problem;

TEST(GemmScheduler, GroupedOrderVisitsEveryTileOnce) {
  for (int gsize : {1, 3, 8, 100}) {
    const auto s = TileScheduler::make(1000, 700, 300, 128, 64, 64, 1, gsize);
    std::set<std::pair<int, int>> seen;
    for (int t = 0; t < s.num_tiles(); ++t) {
      int tm = 0, tn = 0;
      s.tile_coords(t, tm, tn);
      ASSERT_TRUE(tm >= 0 && tm < s.tiles_m && tn >= 0 && tn < s.tiles_n);
      EXPECT_TRUE(seen.emplace(tm, tn).second) << "tile " << t << " repeats (" << tm << "," << tn << ")";
    }
    EXPECT_EQ(int(seen.size()), s.num_tiles());
  }
  // Within a group, consecutive tiles walk down the group's rows first.
  const auto s = TileScheduler::make(1024, 1024, 64, 128, 128, 64, 1, 4);
  int tm = 0, tn = 0;
  s.tile_coords(1, tm, tn);
  EXPECT_EQ(std::make_pair(tm, tn), std::make_pair(1, 0));
  s.tile_coords(4, tm, tn);
  EXPECT_EQ(std::make_pair(tm, tn), std::make_pair(0, 1));
}

// The tiles, clipped to C, cover each of its elements exactly once: ragged last rows and
// columns of tiles included, and problems smaller than one tile.
TEST(GemmScheduler, TilesCoverEveryElementOfCOnce) {
  struct Shape {
    int m, n, blk_m, blk_n;
  };
  for (const Shape& c : {Shape{1000, 700, 128, 64}, Shape{129, 257, 128, 256}, Shape{1, 8, 256, 128},
                         Shape{777, 4104, 128, 144}, Shape{512, 512, 128, 128}}) {
    const auto s = TileScheduler::make(c.m, c.n, 64, c.blk_m, c.blk_n, 64, 1, 3);
    std::vector<int> hits(std::size_t(c.m) * c.n, 0);
    for (int t = 0; t < s.num_tiles(); ++t) {
      int tm = 0, tn = 0;
      s.tile_coords(t, tm, tn);
      for (int r = tm * c.blk_m; r < std::min(c.m, (tm + 1) * c.blk_m); ++r)
        for (int col = tn * c.blk_n; col < std::min(c.n, (tn + 1) * c.blk_n); ++col) ++hits[std::size_t(r) * c.n + col];
    }
    const auto wrong = std::find_if(hits.begin(), hits.end(), [](int h) { return h != 1; });
    EXPECT_EQ(wrong, hits.end()) << c.m << " x " << c.n << " in " << c.blk_m << " x " << c.blk_n
                                 << " tiles: element " << (wrong - hits.begin()) << " covered "
                                 << (wrong == hits.end() ? 1 : *wrong) << " times";
  }
}

// Cluster plans: every unit's blocks (cluster_seat, cluster_tile) cover every element of C
// once; the only tiles left over lie wholly past M or N (a cluster's last row or column of
// tiles where the tile rows or columns do not fill whole units).
TEST(GemmScheduler, ClusterTilesCoverEveryElementOfCOnce) {
  int checked = 0;
  for (const KernelConfig& config : kWgmmaConfigs) {
    if (!config.clustered()) continue;
    for (const auto& [m, n] : {std::pair{1000, 700}, {640, 512}, {129, 257}, {777, 4104}, {4096, 4096}}) {
      GemmOptions o;
      o.config = config;
      o.num_blocks = 10;
      const Plan plan = make_plan(problem(m, n, 256), o, DeviceLimits{});
      ASSERT_EQ(plan.config, config);
      const TileScheduler& s = plan.sched;
      const int workers = plan.num_blocks / config.cluster_blocks();
      std::vector<int> hits(std::size_t(m) * n, 0);
      for (int worker = 0; worker < workers; ++worker) {
        WorkCursor cursor = s.first(worker, workers);
        WorkUnit w;
        while (s.next(cursor, workers, w))
          for (int rank = 0; rank < config.cluster_blocks(); ++rank) {
            const ClusterSeat seat = cluster_seat(rank, config.cluster_m);
            const int row0 = cluster_tile(w.tile_m, config.cluster_m, seat.m) * config.blk_m;
            const int col0 = cluster_tile(w.tile_n, config.cluster_n, seat.n) * config.blk_n;
            EXPECT_LT(row0, ceil_div(m, config.unit_rows()) * config.unit_rows());
            EXPECT_LT(col0, ceil_div(n, config.unit_cols()) * config.unit_cols());
            for (int r = row0; r < std::min(m, row0 + config.blk_m); ++r)
              for (int c = col0; c < std::min(n, col0 + config.blk_n); ++c) ++hits[std::size_t(r) * n + c];
          }
      }
      const auto wrong = std::find_if(hits.begin(), hits.end(), [](int h) { return h != 1; });
      EXPECT_EQ(wrong, hits.end()) << to_string(config) << " on " << m << " x " << n << ": element "
                                   << (wrong - hits.begin()) << " covered " << (wrong == hits.end() ? 1 : *wrong)
                                   << " times";
      ++checked;
    }
  }
  EXPECT_GT(checked, 0) << "no cluster configuration is built";
}

// Every (tile, K iteration) of the problem, as the workers' unit lists cover it.
std::vector<std::vector<int>> coverage(const TileScheduler& s, int workers) {
  std::vector<std::vector<int>> hits(s.num_tiles(), std::vector<int>(s.k_iters, 0));
  for (int worker = 0; worker < workers; ++worker) {
    WorkCursor c = s.first(worker, workers);
    WorkUnit w;
    while (s.next(c, workers, w)) {
      int tm = 0, tn = 0;
      s.tile_coords(w.tile, tm, tn);
      EXPECT_EQ(std::make_pair(tm, tn), std::make_pair(w.tile_m, w.tile_n));
      for (int k = w.k_begin; k < w.k_end; ++k) ++hits[w.tile][k];
    }
  }
  return hits;
}

void expect_each_once(const std::vector<std::vector<int>>& hits) {
  for (std::size_t t = 0; t < hits.size(); ++t)
    for (std::size_t k = 0; k < hits[t].size(); ++k)
      ASSERT_EQ(hits[t][k], 1) << "tile " << t << " K iteration " << k;
}

TEST(GemmScheduler, SplitsCoverKExactly) {
  for (int splits : {1, 2, 3, 7, 16}) {
    const auto s = TileScheduler::make(500, 300, 64 * 37 + 5, 128, 128, 64, splits, 2);
    expect_each_once(coverage(s, 5));
    for (int split = 0; split < splits; ++split) {
      int b = 0, e = 0;
      s.k_range(split, b, e);
      EXPECT_GE(e - b, s.k_iters / splits);
    }
  }
}

// The last wave split (split-K after dp_tiles whole tiles): every iteration once; each
// worker's whole tiles first; the units of a split tile consecutive in the global order
// (unit u is worker u % workers's (u / workers)-th), so its finishing split, the last, waits
// only for lower-numbered units (splitk.cuh: the lowest unfinished unit always progresses);
// and within one round every unit of split s starts at the same K, in step with the tiles
// that share its operands.
TEST(GemmScheduler, SplitTailCoversEveryIterationOnce) {
  for (int workers : {5, 17, 66, 132})
    for (int splits : {2, 3, 7}) {
      auto s = TileScheduler::make(4096, 4608, 36864, 128, 192, 64, splits, 8);
      s.dp_tiles = s.num_tiles() / workers * workers;
      ASSERT_GT(s.split_tiles(), 0);
      expect_each_once(coverage(s, workers));
      std::vector<int> last_unit(s.num_tiles(), -1), final_unit(s.num_tiles(), -1);
      std::vector<std::vector<int>> begins_by_round_split;
      for (int worker = 0; worker < workers; ++worker) {
        WorkCursor c = s.first(worker, workers);
        WorkUnit w;
        for (int round = 0; s.next(c, workers, w); ++round) {
          const int unit = worker + round * workers;
          const bool whole = w.k_end - w.k_begin == s.k_iters;
          EXPECT_EQ(whole, w.tile < s.dp_tiles) << "worker " << worker << " unit " << unit;
          EXPECT_EQ(whole, round < s.dp_tiles / workers) << "worker " << worker << ": whole tiles first";
          if (whole) continue;
          if (w.split + 1 == s.k_splits) final_unit[w.tile] = unit;
          else last_unit[w.tile] = std::max(last_unit[w.tile], unit);
          begins_by_round_split.resize(std::max<std::size_t>(begins_by_round_split.size(), (round + 1) * splits));
          auto& begins = begins_by_round_split[round * splits + w.split];
          begins.push_back(w.k_begin);
          EXPECT_EQ(begins.front(), w.k_begin) << "round " << round << " split " << w.split;
        }
      }
      for (int t = s.dp_tiles; t < s.num_tiles(); ++t)
        EXPECT_LT(last_unit[t], final_unit[t]) << "tile " << t << ": its finishing split waits for a later unit";
    }
}

// Stream-K: each worker's data-parallel tiles (whole) come first, then its contiguous
// range; at most its first stream-K unit is a partial (k_begin > 0), and a tile's
// finishing worker (k_begin == 0) comes before its helpers.
TEST(GemmScheduler, StreamKCoversEveryIterationOnce) {
  for (bool hybrid : {false, true})
    for (int workers : {5, 17, 66, 132}) {
      auto s = TileScheduler::make(4096, 576, 36864, 128, 192, 64, 1, 8);
      s.stream_k_workers = workers;
      const int waves = s.num_tiles() / workers;
      if (hybrid) s.dp_tiles = waves >= 2 ? (waves - 1) * workers : 0;
      expect_each_once(coverage(s, workers));
      for (int worker = 0; worker < workers; ++worker) {
        WorkCursor c = s.first(worker, workers);
        WorkUnit w;
        int units = 0, dp_units = 0;
        while (s.next(c, workers, w)) {
          const int wt = w.tile;
          if (wt < s.dp_tiles) {
            EXPECT_EQ(units, dp_units++) << "worker " << worker << ": data-parallel tiles first";
            EXPECT_EQ(w.k_end - w.k_begin, s.k_iters);
          } else if (units > dp_units) {
            EXPECT_EQ(w.k_begin, 0) << "worker " << worker;
          }
          if (w.k_begin > 0) {  // helpers of the worker holding this tile's first iteration
            const int owner = s.stream_k_worker((wt - s.dp_tiles) * s.k_iters);
            EXPECT_LT(owner, worker);
            EXPECT_GE(s.stream_k_last_worker(wt), worker);
          }
          ++units;
        }
        EXPECT_EQ(dp_units, s.dp_tiles / workers);
        EXPECT_EQ(s.stream_k_worker(s.stream_k_begin(worker)), worker);
      }
    }
}

}  // namespace
}  // namespace symm::gemm
