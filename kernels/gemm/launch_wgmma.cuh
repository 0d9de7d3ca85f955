#pragma once
// Launch glue of the persistent WGMMA kernel for one (input, output, B layout).
#include <string>
#include <tuple>

#include "check.hpp"
#include "launch.hpp"
#include "symm/gemm/persistent_gemm.cuh"

namespace symm::gemm::detail {

template <class Cfg, DType IN, DType OUT, BLayout BL>
void launch_config(const WgmmaLaunch& launch, const WgmmaParams& params, cudaStream_t stream) {
  const auto kernel =
      persistent_gemm_kernel<Cfg, element_t<IN>, element_t<OUT>, BL, NoEpilogueHook>;
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  Cfg::SMEM_BYTES),
             "cudaFuncSetAttribute(persistent_gemm_kernel, max dynamic shared memory)");
  if (launch.resident_limit > 0) {
    int per_sm = 0;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Cfg::THREADS,
                                                             Cfg::SMEM_BYTES),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor(persistent_gemm_kernel)");
    if (per_sm * launch.resident_limit < launch.grid)
      throw Error("symm gemm: split-K needs all " + std::to_string(launch.grid) +
                  " blocks resident at once, but only " + std::to_string(per_sm) + " per SM x " +
                  std::to_string(launch.resident_limit) +
                  " SMs fit; use fewer blocks or SYMM_GEMM_SPLITS=1");
  }
  kernel<<<launch.grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(params, NoEpilogueHook{});
  check_cuda(cudaGetLastError(), "persistent_gemm_kernel launch");
}

template <DType IN, DType OUT, BLayout BL>
void launch_wgmma_typed(const WgmmaLaunch& launch, const WgmmaParams& params, cudaStream_t stream) {
  bool launched = false;
  [&]<class... Cfg>(std::tuple<Cfg...>*) {
    ((!launched && Cfg::desc == launch.config
          ? (launch_config<Cfg, IN, OUT, BL>(launch, params, stream), launched = true)
          : false),
     ...);
  }(static_cast<WgmmaConfigs*>(nullptr));
  if (!launched) throw Error("symm gemm: configuration " + to_string(launch.config) + " is not built");
}

}  // namespace symm::gemm::detail
