#pragma once
// Launch glue of the portable mma.sync kernel for one (input, output, B layout).
#include "symm/common/error.hpp"
#include "symm/host/cuda_check.hpp"
#include "launch.hpp"
#include "symm/gemm/fallback.cuh"

namespace symm::gemm::detail {

template <DType IN, DType OUT, BLayout BL, bool kAligned>
void launch_fallback_variant(const FallbackParams& params, cudaStream_t stream) {
  using Cfg = FallbackConfig;
  const auto kernel = fallback_gemm_kernel<element_t<IN>, element_t<OUT>, BL, kAligned>;
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES),
             "cudaFuncSetAttribute(fallback_gemm_kernel, max dynamic shared memory)");
  const dim3 grid(unsigned(ceil_div(params.n, Cfg::BLK_N)), unsigned(ceil_div(params.m, Cfg::BLK_M)),
                  unsigned(params.k_splits));
  if (grid.y > 65535) throw Error("symm gemm: fallback supports M up to 65535 * 128");
  kernel<<<grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(params);
  check_cuda(cudaGetLastError(), "fallback_gemm_kernel launch");
}

template <DType IN, DType OUT, BLayout BL>
void launch_fallback_typed(bool aligned_loads, const FallbackParams& params, cudaStream_t stream) {
  if (aligned_loads)
    launch_fallback_variant<IN, OUT, BL, true>(params, stream);
  else
    launch_fallback_variant<IN, OUT, BL, false>(params, stream);
}

}  // namespace symm::gemm::detail
