#pragma once
// TMA tensor maps of the WGMMA kernel's operands (cuTensorMapEncodeTiled through the
// runtime's driver entry point, so the library needs no -lcuda). Fused kernels build
// their WgmmaParams from these too.
#include <cuda.h>

#include "symm/gemm/config.hpp"
#include "symm/gemm/types.hpp"

namespace symm::gemm {

struct OperandMaps {
  CUtensorMap a, b, b_tail, c, c_tail;  // b_tail, c_tail: see WgmmaParams
};

// Maps for `p` with the boxes `config`'s kernel loads and stores (params.hpp).
OperandMaps make_operand_maps(const GemmProblem& p, const KernelConfig& config);

// A rows x cols row-major tensor (row stride `ld` elements) in unswizzled boxes of
// box_rows x box_cols (each at most 256; a box row a multiple of 16 bytes): for copies that
// stage whole tile rows through shared memory without reading them there.
CUtensorMap plain_box_map(const void* base, DType type, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                          int box_rows, int box_cols, const char* name);

}  // namespace symm::gemm
