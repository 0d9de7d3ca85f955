#pragma once
// Launch glue of the persistent WGMMA kernel for one (input, output, B layout).
#include <cuda_runtime.h>

#include <string>
#include <tuple>

#include "symm/common/error.hpp"
#include "symm/host/cuda_check.hpp"
#include "launch.hpp"
#include "symm/gemm/persistent_gemm.cuh"

namespace symm::gemm::detail {

// Calls f.operator()<Cfg>() for the built configuration described by c, if it takes B
// in layout BL (kernels exist only for those); false if there is none.
template <BLayout BL, class F>
bool with_config(const KernelConfig& c, F&& f) {
  bool found = false;
  auto visit = [&]<class Cfg>() {
    if constexpr (Cfg::desc.supports(BL))
      if (!found && Cfg::desc == c) f.template operator()<Cfg>(), found = true;
  };
  [&]<class... Cfg>(std::tuple<Cfg...>*) {
    (visit.template operator()<Cfg>(), ...);
  }(static_cast<WgmmaConfigs*>(nullptr));
  return found;
}

// The kernel of Cfg, with its shared-memory limit raised, and a launch of `grid` blocks
// in clusters of Cfg::CLUSTER_M.
template <class Cfg, DType IN, DType OUT, BLayout BL>
struct KernelLaunch {
  static constexpr auto kernel =
      persistent_gemm_kernel<Cfg, element_t<IN>, element_t<OUT>, BL, NoEpilogueHook>;
  cudaLaunchAttribute cluster{};
  cudaLaunchConfig_t config{};

  KernelLaunch(int grid, cudaStream_t stream) {
    check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    Cfg::SMEM_BYTES),
               "cudaFuncSetAttribute(persistent_gemm_kernel, max dynamic shared memory)");
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = Cfg::CLUSTER_M;
    cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
    config.gridDim = dim3(unsigned(grid));
    config.blockDim = dim3(Cfg::THREADS);
    config.dynamicSmemBytes = Cfg::SMEM_BYTES;
    config.stream = stream;
    config.attrs = &cluster;
    config.numAttrs = Cfg::CLUSTER_M > 1 ? 1 : 0;
  }

  // Blocks that can be resident at once (whole clusters; sm_count for 1-block clusters).
  int resident_blocks(int sm_count) const {
    if constexpr (Cfg::CLUSTER_M > 1) {
      int clusters = 0;
      check_cuda(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config),
                 "cudaOccupancyMaxActiveClusters(persistent_gemm_kernel)");
      return clusters * Cfg::CLUSTER_M;
    } else {
      int per_sm = 0;
      check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Cfg::THREADS,
                                                               Cfg::SMEM_BYTES),
                 "cudaOccupancyMaxActiveBlocksPerMultiprocessor(persistent_gemm_kernel)");
      return per_sm * sm_count;
    }
  }
};

template <DType IN, DType OUT, BLayout BL>
void launch_wgmma_typed(const WgmmaLaunch& launch, const WgmmaParams& params, cudaStream_t stream) {
  const bool built = with_config<BL>(launch.config, [&]<class Cfg>() {
    KernelLaunch<Cfg, IN, OUT, BL> l(launch.grid, stream);
    if (launch.resident_limit > 0 && l.resident_blocks(launch.resident_limit) < launch.grid)
      throw Error("symm gemm: split-K/stream-K needs all " + std::to_string(launch.grid) +
                  " blocks resident at once, but only " +
                  std::to_string(l.resident_blocks(launch.resident_limit)) +
                  " fit; use fewer blocks (SYMM_GEMM_SMS) or SYMM_GEMM_SPLITS=1 SYMM_GEMM_STREAM_K=0");
    check_cuda(cudaLaunchKernelEx(&l.config, l.kernel, params, NoEpilogueHook{}),
               "cudaLaunchKernelEx(persistent_gemm_kernel)");
  });
  if (!built)
    throw Error("symm gemm: configuration " + to_string(launch.config) + " is not built for B as " +
                std::string(to_string(BL)));
}

template <DType IN, DType OUT, BLayout BL>
int resident_blocks_typed(const KernelConfig& config, int sm_count) {
  int blocks = 0;
  if (!with_config<BL>(config, [&]<class Cfg>() {
        blocks = KernelLaunch<Cfg, IN, OUT, BL>(sm_count, nullptr).resident_blocks(sm_count);
      }))
    throw Error("symm gemm: configuration " + to_string(config) + " is not built");
  return blocks;
}

}  // namespace symm::gemm::detail
