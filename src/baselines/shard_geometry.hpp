#pragma once
// Where each rank's shard of C lies, in elements and bytes: the arithmetic every baseline
// shares (pure; the cpu tier tests it). Rank r owns columns [r * N/world, (r + 1) * N/world)
// of C (M x N, row-major, ldc = N).
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "symm/gemm/types.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::baselines {

struct ShardGeometry {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t shard_cols = 0;  // N / world
  int rank = 0, world = 1;
  gemm::DType dtype = gemm::DType::bf16;
  gemm::BLayout b_layout = gemm::BLayout::kn;

  std::size_t element_bytes() const { return static_cast<std::size_t>(gemm::dtype_bytes(dtype)); }
  std::size_t c_pitch() const { return n * element_bytes(); }               // bytes per row of C
  std::size_t shard_width() const { return shard_cols * element_bytes(); }  // bytes per shard row
  std::size_t shard_bytes() const { return m * shard_width(); }           // one dense shard
  // Byte offset of rank r's block in row `row` of C.
  std::size_t c_offset(int r, std::int64_t row) const {
    return row * c_pitch() + r * shard_width();
  }
  std::size_t a_offset(std::int64_t row) const { return row * k * element_bytes(); }
  std::int64_t ldb() const { return b_layout == gemm::BLayout::kn ? shard_cols : k; }
};

// The geometry of `shape` for `rank` of `world` (the shape already validated).
ShardGeometry shard_geometry(const ops::AllScatterShape& shape, int rank, int world);

// The GEMM of rows [row0, row0 + rows) of A with this rank's B shard into `c` (leading
// dimension ldc): `a` and `c` point at the first row of the whole operands.
gemm::GemmProblem shard_gemm(const ShardGeometry& g, std::int64_t row0, std::int64_t rows,
                             const void* a, const void* b_shard, void* c, std::int64_t ldc);

template <class T>
T* byte_offset(T* p, std::size_t bytes) {
  using Byte = std::conditional_t<std::is_const_v<T>, const std::byte, std::byte>;
  return reinterpret_cast<T*>(reinterpret_cast<Byte*>(p) + bytes);
}

}  // namespace symm::baselines
