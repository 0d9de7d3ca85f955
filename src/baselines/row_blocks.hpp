#pragma once
// How chunked_copy_engine splits the GEMM into row blocks (pure; the cpu tier tests it).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace symm::baselines {

// `count` blocks of `rows` rows each, except the last, which has `last_rows` (<= rows).
struct RowBlocks {
  std::int64_t rows = 0;
  int count = 0;
  std::int64_t last_rows = 0;

  std::int64_t first_row(int block) const { return block * rows; }
  std::int64_t rows_of(int block) const { return block + 1 < count ? rows : last_rows; }
  bool operator==(const RowBlocks&) const = default;
};

// Block heights are multiples of this many rows: whole 128-row GEMM tiles per block.
inline constexpr std::int64_t kRowBlockGranularity = 128;
inline constexpr int kDefaultBlockCounts[] = {2, 4, 8, 16};

// M rows split into about `count` blocks of a whole number of granules each.
RowBlocks split_rows(std::int64_t m, int count, std::int64_t granularity = kRowBlockGranularity);

// The distinct splits of M for the requested counts (granule rounding can merge two
// counts, or leave one block), in increasing block count; never empty.
std::vector<RowBlocks> row_block_candidates(std::int64_t m,
                                            std::span<const int> counts = kDefaultBlockCounts,
                                            std::int64_t granularity = kRowBlockGranularity);

std::string describe(const RowBlocks& blocks);  // "4 row blocks of 2048 rows (last 1000)"

}  // namespace symm::baselines
