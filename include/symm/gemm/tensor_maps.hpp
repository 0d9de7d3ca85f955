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

// C alone, in the epilogue's pieces of (kEpilogueRows, 128 bytes), with the narrower last
// piece of tiles `tile_cols` wide in c_tail (c itself when they are whole pieces wide).
struct CMaps {
  CUtensorMap c, c_tail;
};
CMaps make_c_maps(const GemmProblem& p, int tile_cols);

}  // namespace symm::gemm
