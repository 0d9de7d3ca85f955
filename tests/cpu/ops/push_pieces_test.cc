// The push role's pieces (params.hpp push_piece_rows) for every tile the comm blocks and the
// scatter kernel copy: each piece is a TMA box of piece_rows rows, so the pieces must tile
// a tile's rows exactly (a box straddling the tile's last row would copy rows of the next
// tile that may not be published yet), fit the piece size and leave the ring its slots.
#include <gtest/gtest.h>

#include "configs.hpp"
#include "launch.hpp"
#include "params.hpp"

namespace symm::ops::detail {
namespace {

void expect_pieces_tile(int blk_m, int blk_n, int smem_bytes, const char* where) {
  constexpr int kElemBytes = 2;  // bf16 and fp16: the op's inputs and outputs
  const int rows = push_piece_rows(blk_m, blk_n, kElemBytes, smem_bytes);
  SCOPED_TRACE(testing::Message() << blk_m << "x" << blk_n << " tiles through " << smem_bytes << " B ("
                                  << where << "): " << rows << "-row pieces");
  ASSERT_GT(rows, 0);
  EXPECT_EQ(blk_m % rows, 0) << "a piece would straddle the tile's last row";
  EXPECT_EQ(rows % 8, 0);
  const int piece_bytes = rows * blk_n * kElemBytes;
  EXPECT_LE(piece_bytes, kPushPieceBytes);
  EXPECT_GE(push_slots(piece_bytes, smem_bytes), kPushMinSlots);
  EXPECT_LE(push_smem_bytes(push_slots(piece_bytes, smem_bytes), piece_bytes), smem_bytes);
}

TEST(PushPieces, TileEveryCopiedTileExactly) {
  for (const gemm::KernelConfig& c : kPublishConfigs) {
    expect_pieces_tile(c.blk_m, c.blk_n, c.smem_bytes(), "comm blocks, in the GEMM's shared memory");
    expect_pieces_tile(c.blk_m, c.blk_n, kScatterSmemBytes, "producer_consumer's scatter kernel");
  }
  expect_pieces_tile(kBulkTileM, kBulkTileN, kScatterSmemBytes, "bulk_synchronous's scatter kernel");
}

// Where a tile's height has no divisor of a piece's size but 8, the pieces are 8 rows.
TEST(PushPieces, FallBackToRowsThatDivideTheTile) {
  EXPECT_EQ(push_piece_rows(128, 192, 2, kScatterSmemBytes), 64);  // 80 rows would fit 32 KB
  EXPECT_EQ(push_piece_rows(200, 256, 2, kScatterSmemBytes), 40);
  EXPECT_EQ(push_piece_rows(136, 256, 2, kScatterSmemBytes), 8);
  EXPECT_EQ(push_piece_rows(128, 256, 2, 4 * 1024), 0);  // not 4 pieces of any height
}

}  // namespace
}  // namespace symm::ops::detail
