#include "row_blocks.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "symm/common/error.hpp"

namespace symm::baselines {

RowBlocks split_rows(std::int64_t m, int count, std::int64_t granularity) {
  if (m < 1 || count < 1 || granularity < 1)
    throw Error(
        fmt::format("split_rows: {} rows into {} blocks of {}-row granules: every figure "
                    "must be positive",
                    m, count, granularity));
  const std::int64_t per_block = (m + count - 1) / count;
  const std::int64_t rows = std::min(m, (per_block + granularity - 1) / granularity * granularity);
  RowBlocks blocks;
  blocks.rows = rows;
  blocks.count = static_cast<int>((m + rows - 1) / rows);
  blocks.last_rows = m - (blocks.count - 1) * rows;
  return blocks;
}

std::vector<RowBlocks> row_block_candidates(std::int64_t m, std::span<const int> counts,
                                            std::int64_t granularity) {
  std::vector<RowBlocks> candidates;
  for (int count : counts) {
    const RowBlocks blocks = split_rows(m, count, granularity);
    if (std::find(candidates.begin(), candidates.end(), blocks) == candidates.end())
      candidates.push_back(blocks);
  }
  if (candidates.empty()) candidates.push_back(split_rows(m, 1, granularity));
  std::sort(candidates.begin(), candidates.end(),
            [](const RowBlocks& x, const RowBlocks& y) { return x.count < y.count; });
  return candidates;
}

std::string describe(const RowBlocks& blocks) {
  std::string text = fmt::format("{} row block{} of {} rows", blocks.count,
                                 blocks.count == 1 ? "" : "s", blocks.rows);
  if (blocks.last_rows != blocks.rows) text += fmt::format(" (last {})", blocks.last_rows);
  return text;
}

}  // namespace symm::baselines
