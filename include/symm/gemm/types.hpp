#pragma once
// Plain descriptions of a GEMM shared by the host API, the heuristic and the kernels.
//
//   C[M x N] = A[M x K] * B        (fp32 accumulation)
//
// A is row-major with leading dimension lda (elements). B is either K x N row-major
// (BLayout::kn, ldb >= N) or N x K row-major (BLayout::nk, the "transposed view" Iris
// passes, ldb >= K). C is row-major with its own ldc >= N, so a rank can write its
// M x N shard into columns of a wider matrix.
#include <cstdint>
#include <string_view>

namespace symm::gemm {

enum class DType : std::uint8_t { bf16, fp16, fp32 };
enum class BLayout : std::uint8_t { kn, nk };

constexpr int dtype_bytes(DType t) { return t == DType::fp32 ? 4 : 2; }

// The largest M, N or K: the kernels index rows, columns and K iterations in 32 bits.
inline constexpr std::int64_t kMaxExtent = 2147483647;  // 2^31 - 1
constexpr std::string_view to_string(DType t) {
  return t == DType::bf16 ? "bf16" : t == DType::fp16 ? "fp16" : "fp32";
}
constexpr std::string_view to_string(BLayout l) { return l == BLayout::kn ? "kn" : "nk"; }

struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  std::int64_t lda = 0;
  const void* b = nullptr;
  std::int64_t ldb = 0;
  BLayout b_layout = BLayout::nk;
  void* c = nullptr;
  std::int64_t ldc = 0;
  DType in_dtype = DType::bf16;   // bf16 or fp16, for A and B
  DType out_dtype = DType::bf16;  // the input type, or fp32
  bool operator==(const GemmProblem&) const = default;
};

}  // namespace symm::gemm
