#pragma once
// Whether ranks share a GPU, from ids of each rank's GPU that do not depend on the rank's
// CUDA_VISIBLE_DEVICES (device ordinals do): Runtime::rank_gpus()'s PCI bus ids, or UUIDs.
#include <array>
#include <span>
#include <string>

namespace symm::baselines {

using GpuUuid = std::array<unsigned char, 16>;

// "" when every rank has a GPU of its own, else which ranks share one, e.g. "ranks 0 and 2
// share one GPU" (pure; the cpu tier tests it).
std::string describe_shared_gpu(std::span<const std::string> gpu_of_rank);
std::string describe_shared_gpu(std::span<const GpuUuid> gpu_of_rank);

}  // namespace symm::baselines
