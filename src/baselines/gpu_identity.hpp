#pragma once
// Which GPU each rank runs on, by UUID: device ordinals differ between processes with
// different CUDA_VISIBLE_DEVICES, UUIDs do not.
#include <array>
#include <span>
#include <string>
#include <vector>

namespace symm {
class Team;
}

namespace symm::baselines {

using GpuUuid = std::array<unsigned char, 16>;

// Collective: every rank's GPU UUID, by rank.
std::vector<GpuUuid> gather_gpu_uuids(Team& team, int device);

// "" when every rank has a GPU of its own, else which ranks share one, e.g. "ranks 0 and 2
// share one GPU" (pure; the cpu tier tests it).
std::string describe_shared_gpu(std::span<const GpuUuid> uuid_of_rank);

}  // namespace symm::baselines
