#pragma once
// Launch glue for kernels built from the persistent GEMM's blocks: the plain GEMM
// (kernels/gemm) and the fused ops (kernels/ops) use the same pieces.
//
//   with_config(plan.config, [&]<class Cfg>() {
//     GridLaunch<Cfg> launch(my_kernel<Cfg, ...>, grid, stream);
//     launch.require_resident("my op", why);   // blocks that wait for each other
//     launch.launch(params...);
//   });
#include <cuda_runtime.h>

#include <string>
#include <tuple>

#include "symm/common/error.hpp"
#include "symm/gemm/config.hpp"
#include "symm/host/cuda_check.hpp"

namespace symm::gemm {

// Calls f.operator()<Cfg>() for the configuration of `Configs` (a std::tuple of
// TileConfig, by default every built one) described by c; false if there is none.
template <class Configs = WgmmaConfigs, class F>
bool with_config(const KernelConfig& c, F&& f) {
  bool found = false;
  auto visit = [&]<class Cfg>() {
    if (!found && Cfg::desc == c) f.template operator()<Cfg>(), found = true;
  };
  [&]<class... Cfg>(std::tuple<Cfg...>*) {
    (visit.template operator()<Cfg>(), ...);
  }(static_cast<Configs*>(nullptr));
  return found;
}

// A launch of `grid` blocks of a kernel with Cfg's block size, shared memory and cluster
// size (grid a multiple of it); `Kernel` is the kernel's function pointer type.
template <class Cfg, class Kernel>
struct GridLaunch {
  Kernel kernel;
  cudaLaunchConfig_t config{};
  cudaLaunchAttribute cluster{};

  GridLaunch(Kernel k, int grid, cudaStream_t stream) : kernel(k) {
    check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    Cfg::SMEM_BYTES),
               "cudaFuncSetAttribute(max dynamic shared memory)");
    config.gridDim = dim3(unsigned(grid));
    config.blockDim = dim3(Cfg::THREADS);
    config.dynamicSmemBytes = Cfg::SMEM_BYTES;
    config.stream = stream;
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = unsigned(Cfg::CLUSTER_BLOCKS);  // ranks: cluster_seat()
    cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
  }

  // Blocks that can be resident at once.
  int resident_blocks(int sm_count) {
    if constexpr (Cfg::CLUSTERED) {
      int clusters = 0;
      attach_cluster();
      check_cuda(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config),
                 "cudaOccupancyMaxActiveClusters");
      return clusters * Cfg::CLUSTER_BLOCKS;
    }
    int per_sm = 0;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Cfg::THREADS,
                                                             Cfg::SMEM_BYTES),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return per_sm * sm_count;
  }

  // Blocks that wait for each other must all be resident at once, or the grid can
  // deadlock: refuse the launch before it happens, saying which limit was exceeded.
  void require_resident(int sm_count, const std::string& what, const std::string& fix) {
    const int fit = resident_blocks(sm_count);
    if (fit < int(config.gridDim.x))
      throw Error(what + " needs all " + std::to_string(config.gridDim.x) +
                  " blocks resident at once, but only " + std::to_string(fit) + " fit (" +
                  std::to_string(Cfg::SMEM_BYTES) + " bytes of shared memory and " +
                  std::to_string(Cfg::THREADS) + " threads per block on " +
                  std::to_string(sm_count) + " SMs); " + fix);
  }

  template <class... Args>
  void launch(const char* name, const Args&... args) {
    attach_cluster();
    check_cuda(cudaLaunchKernelEx(&config, kernel, args...), name);
  }

  // The attribute is pointed to only now: this object may have been copied since built.
  void attach_cluster() {
    config.attrs = Cfg::CLUSTERED ? &cluster : nullptr;
    config.numAttrs = Cfg::CLUSTERED ? 1 : 0;
  }
};

template <class Cfg, class Kernel>
GridLaunch<Cfg, Kernel> grid_launch(Kernel kernel, int grid, cudaStream_t stream) {
  return GridLaunch<Cfg, Kernel>(kernel, grid, stream);
}

}  // namespace symm::gemm
