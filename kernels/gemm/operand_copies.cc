// Which operands the WGMMA kernel reads from a 128-byte-pitched copy (operand_copies.hpp).
#include "symm/gemm/operand_copies.hpp"

#include <fmt/format.h>

namespace symm::gemm {
namespace {

constexpr std::int64_t kPitchAlign = 128;
// Rows straddling 128-byte lines: the kernel takes 1.6x as long (2026-12-01, one H200:
// 6144 x 3456 x 4104 at 478 TFLOP/s against 785 at K = 4096).
constexpr double kStraddleSlowdown = 1.6;
// The aligned GEMM's FLOPs that take as long as moving one byte in the copy kernel (read
// or write): about 785 TFLOP/s over the 3.1 TB/s copy_rows.cu measured there.
constexpr double kFlopsPerMovedByte = 250;

bool aligned(const void* p, std::int64_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }
std::int64_t round_up(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }

struct Operand {
  const void* ptr;
  std::int64_t rows, row_elems, ld;
  int elem_bytes;
  bool tma_cannot() const { return !aligned(ptr, 16) || ld * elem_bytes % 16 != 0; }
  bool straddles() const { return ld * elem_bytes % kPitchAlign != 0; }
  OperandCopy copy() const {
    const std::int64_t row_bytes = row_elems * elem_bytes;
    return OperandCopy{rows, row_bytes, round_up(row_bytes, kPitchAlign)};
  }
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

OperandCopies choose_operand_copies(const GemmProblem& p) {
  const int in = dtype_bytes(p.in_dtype), out = dtype_bytes(p.out_dtype);
  const bool kn = p.b_layout == BLayout::kn;
  const Operand a{p.a, p.m, p.k, p.lda, in};
  const Operand b{p.b, kn ? p.k : p.n, kn ? p.n : p.k, p.ldb, in};
  const Operand c{p.c, p.m, p.n, p.ldc, out};
  OperandCopies copies;
  if (a.tma_cannot()) copies.a = a.copy();
  if (b.tma_cannot()) copies.b = b.copy();
  if (c.tma_cannot()) copies.c = c.copy();
  // Straddling rows: copy every such input if the time saved beats the copies' traffic (a
  // read and a write of each), both in FLOPs of the aligned kernel.
  const std::size_t straddle_bytes = (a.straddles() && !copies.a.needed() ? a.copy().bytes() : 0) +
                                     (b.straddles() && !copies.b.needed() ? b.copy().bytes() : 0);
  const double flops = 2.0 * double(p.m) * double(p.n) * double(p.k);
  const double saved = flops * (kStraddleSlowdown - 1), cost = 2.0 * double(straddle_bytes) * kFlopsPerMovedByte;
  if (straddle_bytes > 0 && saved > cost) {
    if (a.straddles()) copies.a = a.copy();
    if (b.straddles()) copies.b = b.copy();
  }
  return copies;
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
