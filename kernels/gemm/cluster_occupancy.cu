// Blocks resident at once in clusters, for kernels that take a whole SM: an empty probe
// kernel with the device's largest shared-memory block stands in for them (with one
// block per SM, occupancy depends only on which SMs a cluster may span: one GPC's).
#include <cuda_runtime.h>

#include "launch.hpp"
#include "symm/host/cuda_check.hpp"

namespace symm::gemm::detail {
namespace {

__global__ void whole_sm_probe() {}

}  // namespace

int resident_blocks_in_clusters(int cluster_blocks, int smem_bytes) {
  check_cuda(cudaFuncSetAttribute(whole_sm_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes),
             "cudaFuncSetAttribute(cluster probe shared memory)");
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = unsigned(cluster_blocks);
  cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(cluster_blocks));
  config.blockDim = dim3(128);
  config.dynamicSmemBytes = std::size_t(smem_bytes);
  config.attrs = &cluster;
  config.numAttrs = 1;
  int clusters = 0;
  check_cuda(cudaOccupancyMaxActiveClusters(&clusters, whole_sm_probe, &config), "cudaOccupancyMaxActiveClusters");
  return clusters * cluster_blocks;
}

}  // namespace symm::gemm::detail
