// Which operands the WGMMA kernel reads from a 128-byte-pitched copy (operand_copies.hpp).
#include "symm/gemm/operand_copies.hpp"

#include <fmt/format.h>

namespace symm::gemm {
namespace {

constexpr std::int64_t kPitchAlign = 128;
// TMA reads rows that start inside a 32-byte L2 sector far slower: 128x256 tiles ran 0.63
// of cuBLASLt on 4096 x 4096 x 4104 (rows 16 bytes past a sector) but 0.99 on K = 4112 and
// 4128 (rows 32 and 64 bytes past a 128-byte line; bench/results/gemm/2026-12-03-clustersplit-57ea4b7).
constexpr std::int64_t kSectorBytes = 32;

bool aligned(const void* p, std::int64_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }
std::int64_t round_up(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }

struct Operand {
  const void* ptr;
  std::int64_t rows, row_elems, ld;
  int elem_bytes;
  bool tma_cannot() const { return !aligned(ptr, 16) || ld * elem_bytes % 16 != 0; }
  bool straddles() const { return rows_off_sectors(ptr, ld * elem_bytes); }
  OperandCopy copy() const {
    const std::int64_t row_bytes = row_elems * elem_bytes;
    return OperandCopy{rows, row_bytes, round_up(row_bytes, kPitchAlign)};
  }
};

// A, B (as laid out) and C of p.
struct Operands {
  Operand a, b, c;
  explicit Operands(const GemmProblem& p)
      : a{p.a, p.m, p.k, p.lda, dtype_bytes(p.in_dtype)},
        b{p.b, p.b_layout == BLayout::kn ? p.k : p.n, p.b_layout == BLayout::kn ? p.n : p.k, p.ldb,
          dtype_bytes(p.in_dtype)},
        c{p.c, p.m, p.n, p.ldc, dtype_bytes(p.out_dtype)} {}
};

}  // namespace

std::string OperandCopies::describe() const {
  std::string names;
  for (auto [name, copy] : {std::pair{"A", &a}, {"B", &b}, {"C", &c}})
    if (copy->needed()) names += std::string(names.empty() ? "" : ", ") + name;
  if (names.empty()) return {};
  return fmt::format("{} through scratch with a 128-byte row pitch ({} MiB)", names,
                     (a.bytes() + b.bytes() + c.bytes()) >> 20);
}

OperandCopies required_copies(const GemmProblem& p) {
  const Operands ops(p);
  OperandCopies copies;
  if (ops.a.tma_cannot()) copies.a = ops.a.copy();
  if (ops.b.tma_cannot()) copies.b = ops.b.copy();
  if (ops.c.tma_cannot()) copies.c = ops.c.copy();
  return copies;
}

OperandCopies every_copy(const GemmProblem& p) {
  const Operands ops(p);
  return OperandCopies{ops.a.copy(), ops.b.copy(), ops.c.copy()};
}

OperandCopies straddle_copies(const GemmProblem& p) {
  const Operands ops(p);
  OperandCopies copies = required_copies(p);
  if (ops.a.straddles()) copies.a = ops.a.copy();
  if (ops.b.straddles()) copies.b = ops.b.copy();
  return copies;
}

bool rows_off_sectors(const void* base, std::int64_t row_stride_bytes) {
  return !aligned(base, kSectorBytes) || row_stride_bytes % kSectorBytes != 0;
}

Straddling straddles(const GemmProblem& p) {
  const Operands ops(p);
  return Straddling{ops.a.straddles(), ops.b.straddles()};
}

std::size_t moved_bytes(const OperandCopies& copies) {
  return 2 * (copies.a.bytes() + copies.b.bytes() + copies.c.bytes());
}

GemmProblem with_copies(const GemmProblem& p, const OperandCopies& copies, void* a, void* b, void* c) {
  GemmProblem q = p;
  const int in = dtype_bytes(p.in_dtype), out = dtype_bytes(p.out_dtype);
  if (copies.a.needed()) q.a = a, q.lda = copies.a.pitch / in;
  if (copies.b.needed()) q.b = b, q.ldb = copies.b.pitch / in;
  if (copies.c.needed()) q.c = c, q.ldc = copies.c.pitch / out;
  return q;
}

}  // namespace symm::gemm
