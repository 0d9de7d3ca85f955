// chunked_copy_engine's row blocks: whole 128-row granules, every row covered once, and
// counts that round onto the same split tried once.
#include "row_blocks.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "symm/common/error.hpp"

namespace symm::baselines {
namespace {

std::vector<int> counts_of(const std::vector<RowBlocks>& candidates) {
  std::vector<int> counts;
  for (const RowBlocks& b : candidates) counts.push_back(b.count);
  return counts;
}

TEST(RowBlocks, EvenSplitsOfALargeM) {
  const auto candidates = row_block_candidates(8192);
  EXPECT_EQ(counts_of(candidates), (std::vector<int>{2, 4, 8, 16}));
  for (const RowBlocks& b : candidates) {
    EXPECT_EQ(b.rows * b.count, 8192);
    EXPECT_EQ(b.last_rows, b.rows);
  }
}

TEST(RowBlocks, GranulesMergeCountsAndShortenTheLastBlock) {
  // 1000 rows: 16 and 8 blocks both round up to 128-row blocks (8 of them, the last 104).
  const auto candidates = row_block_candidates(1000);
  ASSERT_EQ(candidates.size(), 3u);
  EXPECT_EQ(candidates[0], (RowBlocks{512, 2, 488}));
  EXPECT_EQ(candidates[1], (RowBlocks{256, 4, 232}));
  EXPECT_EQ(candidates[2], (RowBlocks{128, 8, 104}));
}

TEST(RowBlocks, AnMOfOneGranuleOrLessIsOneBlock) {
  EXPECT_EQ(row_block_candidates(100), (std::vector<RowBlocks>{{100, 1, 100}}));
  EXPECT_EQ(row_block_candidates(128), (std::vector<RowBlocks>{{128, 1, 128}}));
  EXPECT_EQ(row_block_candidates(129), (std::vector<RowBlocks>{{128, 2, 1}}));
}

TEST(RowBlocks, EveryRowInExactlyOneBlockOfWholeGranules) {
  for (std::int64_t m : {1, 127, 255, 256, 300, 1000, 4096, 5000, 8192, 12345, 65536}) {
    for (const RowBlocks& b : row_block_candidates(m)) {
      SCOPED_TRACE(testing::Message() << "M " << m << ", " << describe(b));
      ASSERT_GE(b.count, 1);
      EXPECT_TRUE(b.count == 1 || b.rows % kRowBlockGranularity == 0);
      EXPECT_GT(b.last_rows, 0);
      EXPECT_LE(b.last_rows, b.rows);
      std::int64_t next_row = 0;
      for (int block = 0; block < b.count; ++block) {
        EXPECT_EQ(b.first_row(block), next_row);
        next_row += b.rows_of(block);
      }
      EXPECT_EQ(next_row, m);
    }
  }
}

TEST(RowBlocks, NoRowsIsAnError) {
  EXPECT_THROW(split_rows(0, 4), Error);
  EXPECT_THROW(split_rows(1024, 0), Error);
}

TEST(RowBlocks, Describe) {
  EXPECT_EQ(describe(RowBlocks{2048, 4, 2048}), "4 row blocks of 2048 rows");
  EXPECT_EQ(describe(RowBlocks{512, 2, 488}), "2 row blocks of 512 rows (last 488)");
  EXPECT_EQ(describe(RowBlocks{100, 1, 100}), "1 row block of 100 rows");
}

}  // namespace
}  // namespace symm::baselines
