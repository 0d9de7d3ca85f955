// The push role's pieces (params.hpp push_piece_rows) for every tile the copiers (comm,
// scatter and joining GEMM blocks) copy, in the shared memory they stage through: each
// piece is a TMA box of piece_rows rows, so the pieces must tile a tile's rows exactly (a
// box straddling the tile's last row would copy rows of the next tile that may not be
// published yet), fit the piece size and leave the ring its slots.
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
    expect_pieces_tile(c.blk_m, c.blk_n, push_staging_bytes(ScatterVariant::wg_specialization, c),
                       "wg_specialization: comm and GEMM blocks, in the GEMM's shared memory");
    expect_pieces_tile(c.blk_m, c.blk_n, push_staging_bytes(ScatterVariant::producer_consumer, c),
                       "producer_consumer: scatter blocks, and GEMM blocks in the GEMM's shared memory");
  }
  expect_pieces_tile(kBulkTileM, kBulkTileN, push_staging_bytes(ScatterVariant::bulk_synchronous, {}),
                     "bulk_synchronous's scatter kernel");
}

// producer_consumer's GEMM blocks copy with the scatter kernel's pieces: those must leave
// the ring its slots in the GEMM's shared memory too, where it is the smaller.
TEST(PushPieces, ProducerConsumerPiecesFitTheGemmBlocksToo) {
  for (const gemm::KernelConfig& c : kPublishConfigs) {
    const int rows = push_piece_rows(c.blk_m, c.blk_n, 2, push_staging_bytes(ScatterVariant::producer_consumer, c));
    SCOPED_TRACE(gemm::to_string(c));
    EXPECT_GE(push_slots(rows * c.blk_n * 2, c.smem_bytes()), kPushMinSlots);
    EXPECT_GE(push_slots(rows * c.blk_n * 2, kScatterSmemBytes), kPushMinSlots);
  }
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
