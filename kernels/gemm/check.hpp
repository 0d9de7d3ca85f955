#pragma once
// CUDA error checks of the GEMM library: a failed call becomes a symm::Error naming the
// call and what to do. Header-only and fmt-free, so .cu launch glue can use it too.
#include <cuda_runtime_api.h>

#include <string>

#include "symm/common/error.hpp"

namespace symm::gemm::detail {

inline void check_cuda(cudaError_t status, const char* call, const char* hint = "") {
  if (status == cudaSuccess) return;
  std::string msg = std::string("symm gemm: ") + call + " failed: " + cudaGetErrorName(status) +
                    " (" + cudaGetErrorString(status) + ")";
  if (*hint) msg += "; " + std::string(hint);
  throw Error(msg);
}

}  // namespace symm::gemm::detail
