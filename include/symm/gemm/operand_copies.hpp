#pragma once
// Operands the WGMMA kernel reads better from a copy. TMA needs 16-byte aligned pointers
// and row strides, and loads rows that straddle 32-byte L2 sectors (start inside one) far
// slower (docs/gemm.md). So an operand whose stride TMA cannot take is copied to
// scratch with a row pitch that is a multiple of 128 bytes before the kernel (a C that TMA
// cannot store is written to scratch and copied back after), and straddling inputs may be
// copied too, where the planner finds the copies cheaper than the slower loads of the
// configuration it weighs (plan.cc). Pure host functions: the cpu tier tests them.
#include <cstddef>
#include <cstdint>
#include <string>

#include "symm/gemm/types.hpp"

namespace symm::gemm {

struct OperandCopy {
  std::int64_t rows = 0;       // 0: no copy
  std::int64_t row_bytes = 0;  // bytes of each row that hold the operand
  std::int64_t pitch = 0;      // bytes between rows of the copy, a multiple of 128
  bool needed() const { return rows > 0; }
  std::size_t bytes() const { return std::size_t(rows) * std::size_t(pitch); }
};

struct OperandCopies {
  OperandCopy a, b, c;
  bool any() const { return a.needed() || b.needed() || c.needed(); }
  std::string describe() const;  // "A and B copied to a 128-byte pitch (...)", or empty
};

// The copies p needs: operands TMA cannot describe.
OperandCopies required_copies(const GemmProblem& p);
// A copy of each of p's operands, needed or not: the shape a plan's copy must have for p.
OperandCopies every_copy(const GemmProblem& p);
// Those, and every A or B whose rows straddle 32-byte sectors (nothing more where none do).
OperandCopies straddle_copies(const GemmProblem& p);
// Which of p's A and B have rows that straddle 32-byte sectors (a base or row stride that
// is not a multiple of 32 bytes).
struct Straddling {
  bool a = false, b = false;
  bool any() const { return a || b; }
};
Straddling straddles(const GemmProblem& p);
// Whether rows at `base`, `row_stride_bytes` apart, start inside 32-byte sectors.
bool rows_off_sectors(const void* base, std::int64_t row_stride_bytes);
// Bytes the copies read and write (each copied byte is read once and written once).
std::size_t moved_bytes(const OperandCopies& copies);

// p as the kernel sees it once the copies are made: the copied operands at the given
// scratch addresses (for planning, any 16-byte aligned placeholder) with their pitches.
GemmProblem with_copies(const GemmProblem& p, const OperandCopies& copies, void* a, void* b, void* c);

}  // namespace symm::gemm
