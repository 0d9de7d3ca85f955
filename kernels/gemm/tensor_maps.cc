// TMA descriptors: every operand is a 2-D row-major tensor (inner dimension first) seen
// through 128-byte-swizzled boxes; out-of-bounds loads read zeros, stores are clipped.
#include "symm/gemm/tensor_maps.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "symm/common/error.hpp"
#include "symm/gemm/operand_copies.hpp"
#include "symm/host/cuda_check.hpp"

namespace symm::gemm {
namespace {

// Looked up once: the driver is reached through its entry points, never linked.
auto* encode_fn() {
  static auto* fn = SYMM_DRIVER_FUNCTION(cuTensorMapEncodeTiled);
  return fn;
}

CUtensorMapDataType tma_type(DType t) {
  return t == DType::bf16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
         : t == DType::fp16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                            : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

// The swizzle whose span is a box row of `bytes` (32, 64 or 128).
CUtensorMapSwizzle swizzle_for(int bytes) {
  return bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
         : bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                       : CU_TENSOR_MAP_SWIZZLE_128B;
}

// A rows x cols row-major tensor with a row stride of `ld` elements, read or written in
// (box_rows, box_cols) boxes whose rows are swizzled over their width (at most 128 B), or
// laid out plainly (`swizzled` false: any width up to 256 elements).
CUtensorMap tile_map(const void* base, DType type, std::int64_t rows, std::int64_t cols,
                     std::int64_t ld, int box_rows, int box_cols, const char* name, bool swizzled = true) {
  const int box_bytes = box_cols * dtype_bytes(type);
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(ld) * dtype_bytes(type)};
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  // Rows that start inside a 32-byte sector load faster with L2 promoting misses to 128
  // bytes than to 256: 128x256 tiles 0.63 -> 0.74 of cuBLASLt on 4096 x 4096 x 4104, 200x128
  // swapped pairs 0.77 -> 0.89 on 777 x 4104 x 8200; whole-sector rows ran the same either
  // way (bench/results/gemm/2026-12-03-sectors-d9cd48d).
  const CUtensorMapL2promotion promotion = rows_off_sectors(base, std::int64_t(strides[0]))
                                               ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                               : CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  const CUresult r = encode_fn()(&map, tma_type(type), 2, const_cast<void*>(base), dims, strides,
                                 box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                 swizzled ? swizzle_for(box_bytes) : CU_TENSOR_MAP_SWIZZLE_NONE, promotion,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    check_driver(r, fmt::format("symm gemm: cuTensorMapEncodeTiled({} at {}: {} x {}, ld {}, box {} x {})", name,
                                base, rows, cols, ld, box_rows, box_cols),
                 fmt::format("TMA reads and writes a matrix whose start is 16-byte aligned and whose rows are "
                             "a multiple of 16 bytes apart; this one starts {} bytes past a 16-byte boundary, "
                             "its rows {} bytes apart",
                             reinterpret_cast<std::uintptr_t>(base) % 16, strides[0]));
  return map;
}

}  // namespace

OperandMaps make_operand_maps(const GemmProblem& p, const KernelConfig& c) {
  OperandMaps maps;
  // In a cluster, each block loads its part of the rows of A and of B (producer.cuh).
  maps.a = tile_map(p.a, p.in_dtype, p.m, p.k, p.lda, c.blk_m / c.cluster_n, c.blk_k, "A");
  maps.b = p.b_layout == BLayout::nk
               ? tile_map(p.b, p.in_dtype, p.n, p.k, p.ldb, c.blk_n / c.cluster_m, c.blk_k, "B (N x K)")
               : tile_map(p.b, p.in_dtype, p.k, p.n, p.ldb, c.blk_k, kSwizzleBytes / 2, "B (K x N)");
  maps.b_tail = p.b_layout == BLayout::nk || kn_tail_cols(c.blk_n) == 0
                    ? maps.b
                    : tile_map(p.b, p.in_dtype, p.k, p.n, p.ldb, c.blk_k, kn_tail_cols(c.blk_n), "B (K x N, last columns of a tile)");
  const int c_cols = kSwizzleBytes / dtype_bytes(p.out_dtype);
  maps.c = tile_map(p.c, p.out_dtype, p.m, p.n, p.ldc, kEpilogueRows, c_cols, "C");
  // The epilogue's narrower last piece of tiles that are not whole 128-byte chunks wide,
  // or the shorter last one of swapped tiles not a multiple of 64 rows tall (params.hpp).
  if (c.swapped() && c.blk_m % kEpilogueRows != 0)
    maps.c_tail = tile_map(p.c, p.out_dtype, p.m, p.n, p.ldc, c.blk_m % kEpilogueRows, c_cols,
                           "C (last rows of a swapped tile)");
  else if (c.blk_n % c_cols != 0)
    maps.c_tail = tile_map(p.c, p.out_dtype, p.m, p.n, p.ldc, kEpilogueRows, c.blk_n % c_cols, "C");
  else
    maps.c_tail = maps.c;
  return maps;
}

CUtensorMap plain_box_map(const void* base, DType type, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                          int box_rows, int box_cols, const char* name) {
  return tile_map(base, type, rows, cols, ld, box_rows, box_cols, name, false);
}

}  // namespace symm::gemm
