#include "gpu_identity.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstring>

#include "symm/host/cuda_check.hpp"
#include "symm/host/team.hpp"

namespace symm::baselines {

std::vector<GpuUuid> gather_gpu_uuids(Team& team, int device) {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device),
             fmt::format("cudaGetDeviceProperties({})", device));
  GpuUuid mine{};
  static_assert(sizeof(prop.uuid.bytes) == sizeof(GpuUuid));
  std::memcpy(mine.data(), prop.uuid.bytes, mine.size());
  const std::vector<std::byte> all = team.all_gather(std::as_bytes(std::span(mine)));
  std::vector<GpuUuid> uuids(static_cast<std::size_t>(team.world()));
  std::memcpy(uuids.data(), all.data(), all.size());
  return uuids;
}

std::string describe_shared_gpu(std::span<const GpuUuid> uuid_of_rank) {
  for (std::size_t second = 1; second < uuid_of_rank.size(); ++second)
    for (std::size_t first = 0; first < second; ++first)
      if (uuid_of_rank[first] == uuid_of_rank[second])
        return fmt::format("ranks {} and {} share one GPU", first, second);
  return {};
}

}  // namespace symm::baselines
