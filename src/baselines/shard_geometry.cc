#include "shard_geometry.hpp"

namespace symm::baselines {

ShardGeometry shard_geometry(const ops::AllScatterShape& shape, int rank, int world) {
  ShardGeometry g;
  g.m = shape.m, g.n = shape.n, g.k = shape.k;
  g.shard_cols = shape.n / world;
  g.rank = rank, g.world = world;
  g.dtype = shape.dtype;
  g.b_layout = shape.b_layout;
  return g;
}

gemm::GemmProblem shard_gemm(const ShardGeometry& g, std::int64_t row0, std::int64_t rows,
                             const void* a, const void* b_shard, void* c, std::int64_t ldc) {
  gemm::GemmProblem p;
  p.m = rows, p.n = g.shard_cols, p.k = g.k;
  p.a = byte_offset(a, g.a_offset(row0)), p.lda = g.k;
  p.b = b_shard, p.ldb = g.ldb(), p.b_layout = g.b_layout;
  p.c = byte_offset(c, static_cast<std::size_t>(row0 * ldc) * g.element_bytes()), p.ldc = ldc;
  p.in_dtype = p.out_dtype = g.dtype;
  return p;
}

}  // namespace symm::baselines
