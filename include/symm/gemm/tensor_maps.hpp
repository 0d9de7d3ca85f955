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

}  // namespace symm::gemm
