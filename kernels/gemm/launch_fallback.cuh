#pragma once
// Launch glue of the portable mma.sync kernel for one (input, output, B layout).
#include <string>

#include "symm/common/error.hpp"
#include "symm/host/cuda_check.hpp"
#include "launch.hpp"
#include "symm/gemm/fallback.cuh"

namespace symm::gemm::detail {

template <class Cfg, DType IN, DType OUT, BLayout BL, bool kAligned>
void launch_fallback_variant(const FallbackParams& params, cudaStream_t stream) {
  const auto kernel = fallback_gemm_kernel<Cfg, element_t<IN>, element_t<OUT>, BL, kAligned>;
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES),
             "cudaFuncSetAttribute(fallback_gemm_kernel, max dynamic shared memory)");
  const dim3 grid(unsigned(ceil_div(params.n, Cfg::BLK_N)), unsigned(ceil_div(params.m, Cfg::BLK_M)),
                  unsigned(params.k_splits));
  if (grid.y > 65535)
    throw Error("symm gemm: the fallback supports M up to 65535 * " + std::to_string(Cfg::BLK_M));
  kernel<<<grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(params);
  check_cuda(cudaGetLastError(), "fallback_gemm_kernel launch");
}

template <class Cfg, DType IN, DType OUT, BLayout BL>
void launch_fallback_config(bool aligned_loads, const FallbackParams& params, cudaStream_t stream) {
  if (aligned_loads)
    launch_fallback_variant<Cfg, IN, OUT, BL, true>(params, stream);
  else
    launch_fallback_variant<Cfg, IN, OUT, BL, false>(params, stream);
}

template <DType IN, DType OUT, BLayout BL>
void launch_fallback_typed(const KernelConfig& config, bool aligned_loads, const FallbackParams& params,
                           cudaStream_t stream) {
  if (config == FallbackConfig::desc)
    return launch_fallback_config<FallbackConfig, IN, OUT, BL>(aligned_loads, params, stream);
  if constexpr (fallback_takes(FallbackNarrowConfig::desc, BL))
    if (config == FallbackNarrowConfig::desc)
      return launch_fallback_config<FallbackNarrowConfig, IN, OUT, BL>(aligned_loads, params, stream);
  throw Error("symm gemm: fallback configuration " + to_string(config) + " is not built for B as " +
              std::string(to_string(BL)));
}

}  // namespace symm::gemm::detail
