#include "gpu_identity.hpp"

#include <fmt/format.h>

namespace symm::baselines {
namespace {

template <class Id>
std::string first_shared(std::span<const Id> gpu_of_rank) {
  for (std::size_t second = 1; second < gpu_of_rank.size(); ++second)
    for (std::size_t first = 0; first < second; ++first)
      if (gpu_of_rank[first] == gpu_of_rank[second])
        return fmt::format("ranks {} and {} share one GPU", first, second);
  return {};
}

}  // namespace

std::string describe_shared_gpu(std::span<const std::string> gpu_of_rank) {
  return first_shared(gpu_of_rank);
}

std::string describe_shared_gpu(std::span<const GpuUuid> gpu_of_rank) {
  return first_shared(gpu_of_rank);
}

}  // namespace symm::baselines
