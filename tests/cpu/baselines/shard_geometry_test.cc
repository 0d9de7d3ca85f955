// Where each rank's shard lies in C, A and B, in bytes, and the alignment the cuBLASLt
// wrapper reads off an address.
#include "shard_geometry.hpp"

#include <gtest/gtest.h>

#include "symm/baselines/cublaslt_gemm.hpp"

namespace symm::baselines {
namespace {

ops::AllScatterShape shape(gemm::BLayout layout) {
  ops::AllScatterShape s;
  s.m = 256, s.n = 1024, s.k = 512;
  s.dtype = gemm::DType::bf16;
  s.b_layout = layout;
  return s;
}

void* fake(std::uintptr_t address) { return reinterpret_cast<void*>(address); }

TEST(ShardGeometry, OffsetsOfRankTwoOfFour) {
  const ShardGeometry g = shard_geometry(shape(gemm::BLayout::nk), 2, 4);
  EXPECT_EQ(g.shard_cols, 256);
  EXPECT_EQ(g.c_pitch(), 1024u * 2);
  EXPECT_EQ(g.shard_width(), 256u * 2);
  EXPECT_EQ(g.shard_bytes(), 256u * 256 * 2);
  EXPECT_EQ(g.c_offset(2, 3), 3u * 2048 + 2 * 512);
  EXPECT_EQ(g.a_offset(128), 128u * 512 * 2);
  EXPECT_EQ(g.ldb(), 512);  // N/world x K: a row is K long
  EXPECT_EQ(shard_geometry(shape(gemm::BLayout::kn), 2, 4).ldb(), 256);  // K x N/world
}

TEST(ShardGeometry, RowBlockGemmIntoCsColumns) {
  const ShardGeometry g = shard_geometry(shape(gemm::BLayout::kn), 1, 4);
  void* columns = fake(0x100000 + g.c_offset(1, 0));
  const gemm::GemmProblem p = shard_gemm(g, 128, 64, fake(0x200000), fake(0x300000), columns, g.n);
  EXPECT_EQ(p.m, 64);
  EXPECT_EQ(p.n, 256);
  EXPECT_EQ(p.k, 512);
  EXPECT_EQ(p.a, fake(0x200000 + 128 * 512 * 2));
  EXPECT_EQ(p.lda, 512);
  EXPECT_EQ(p.b, fake(0x300000));
  EXPECT_EQ(p.ldb, 256);
  EXPECT_EQ(p.b_layout, gemm::BLayout::kn);
  EXPECT_EQ(p.c, fake(0x100000 + 512 + 128 * 1024 * 2));
  EXPECT_EQ(p.ldc, 1024);
  EXPECT_EQ(p.in_dtype, gemm::DType::bf16);
  EXPECT_EQ(p.out_dtype, gemm::DType::bf16);
}

TEST(ShardGeometry, DenseSlotGemm) {
  const ShardGeometry g = shard_geometry(shape(gemm::BLayout::nk), 3, 4);
  const gemm::GemmProblem p =
      shard_gemm(g, 0, g.m, fake(0x200000), fake(0x300000), fake(0x400000), g.shard_cols);
  EXPECT_EQ(p.c, fake(0x400000));
  EXPECT_EQ(p.ldc, 256);
  EXPECT_EQ(p.m, 256);
}

TEST(OperandAlignment, LargestPowerOfTwoUpTo256) {
  EXPECT_EQ(operand_alignment(0), 256u);
  EXPECT_EQ(operand_alignment(0x1000), 256u);
  EXPECT_EQ(operand_alignment(0x1080), 128u);
  EXPECT_EQ(operand_alignment(0x1010), 16u);
  EXPECT_EQ(operand_alignment(0x1002), 2u);
  EXPECT_EQ(operand_alignment(0x1001), 1u);
}

}  // namespace
}  // namespace symm::baselines
