#pragma once
// Launch glue of the persistent WGMMA kernel for one (input, output, B layout).
#include <cuda_runtime.h>

#include <string>

#include "launch.hpp"
#include "symm/common/error.hpp"
#include "symm/gemm/launch.cuh"
#include "symm/gemm/persistent_gemm.cuh"

namespace symm::gemm::detail {

template <class Cfg, DType IN, DType OUT, BLayout BL>
inline constexpr auto kGemmKernel =
    persistent_gemm_kernel<Cfg, element_t<IN>, element_t<OUT>, BL, NoEpilogueHook>;

template <DType IN, DType OUT, BLayout BL>
void launch_wgmma_typed(const WgmmaLaunch& launch, const WgmmaParams& params, cudaStream_t stream) {
  const bool built = with_config(launch.config, [&]<class Cfg>() {
    auto l = grid_launch<Cfg>(kGemmKernel<Cfg, IN, OUT, BL>, launch.grid, stream);
    if (launch.resident_limit > 0)
      l.require_resident(launch.resident_limit, "symm gemm: split-K/stream-K",
                         "use fewer blocks (SYMM_GEMM_SMS) or SYMM_GEMM_SPLITS=1 SYMM_GEMM_STREAM_K=0");
    l.launch("cudaLaunchKernelEx(persistent_gemm_kernel)", params, NoEpilogueHook{});
  });
  if (!built)
    throw Error("symm gemm: configuration " + to_string(launch.config) + " is not built for B as " +
                std::string(to_string(BL)));
}

}  // namespace symm::gemm::detail
