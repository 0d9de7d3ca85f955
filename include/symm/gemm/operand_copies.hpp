#pragma once
// Operands the WGMMA kernel reads better from a copy. TMA needs 16-byte aligned pointers
// and row strides, and loads rows that straddle 128-byte lines at about 0.64 of the speed
// (a K of 4104 or 4040 against 4096 or 4160, docs/gemm.md). So, before the kernel, an
// operand whose stride TMA cannot take is copied to scratch with a row pitch that is a
// multiple of 128 bytes, and so is one whose rows merely straddle lines where the model
// says the faster GEMM pays for the copy; a C that TMA cannot store is written to scratch
// and copied back after. Pure host functions: the cpu tier tests them.
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

// The copies worth making (or needed) for problem p.
OperandCopies choose_operand_copies(const GemmProblem& p);

// p as the kernel sees it once the copies are made: the copied operands at the given
// scratch addresses (for planning, any 16-byte aligned placeholder) with their pitches.
GemmProblem with_copies(const GemmProblem& p, const OperandCopies& copies, void* a, void* b, void* c);

}  // namespace symm::gemm
