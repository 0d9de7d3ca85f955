#pragma once
// Which parts of a sweep can run here, decided before anything is launched or measured:
// pure functions of the point, the machine's GPU count, SM count and shared-memory
// limit (the cpu tier tests them). Whatever cannot run becomes a row with the reason.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "command_line.hpp"
#include "point.hpp"
#include "report.hpp"
#include "sweep_preset.hpp"

namespace symm::examples::gemm_all_scatter {

// Empty when `world` ranks can run with `visible_gpus` GPUs: one rank per GPU, or 2
// ranks sharing one GPU (a correctness run); more ranks per GPU would only repeat it.
std::string world_skip_reason(int world, int visible_gpus);

// Empty when `config` can run the shape on `world` ranks: each rank's shard must be at
// least BLK_N wide (as Iris requires), the tile's shared memory within the limit, and
// the configuration built (gemm::kWgmmaConfigs, cooperative ones).
std::string config_skip_reason(const ops::AllScatterShape& shape, int world,
                               const gemm::KernelConfig& config, int max_smem_per_block);

// What one launch of a sweep does with memory (decided in the ranks, before the heap is
// mapped, from `room`: free_memory_per_rank). The heap is sized for the launch's largest
// point, so a point too large even alone would fail every point: it is skipped, with the
// reason. Of the rest, the launch measures those whose buffers fit beside that heap; the
// others are left to the next launch, whose heap is smaller (the largest point always
// fits, so every launch with a point left measures one at least).
struct LaunchMemory {
  std::uint64_t heap = 0;                                   // per rank
  std::vector<std::size_t> now;                             // indices measured in this launch
  std::vector<std::pair<std::size_t, std::string>> skipped;  // index, why
};
LaunchMemory plan_launch_memory(const std::vector<CommandLine>& points, int world, std::uint64_t room);

// The command line of one point: `base` (the sweep's own flags) with the preset's
// shape, variants and options; loopback peers, and no baselines, on world-1 points.
CommandLine point_command_line(const CommandLine& base, const SweepPreset& preset,
                               const SweepPoint& point);

struct PointPlan {
  std::vector<ContenderGroup> groups;  // what runs
  std::vector<Row> skipped;            // what cannot, each with its reason
};

// Splits the preset's configurations and the point's variants into what runs and what
// is skipped (the shape on this world, each configuration, each variant's plan).
PointPlan plan_point(const CommandLine& cl, const std::vector<std::optional<gemm::KernelConfig>>& configs,
                     int world, int sm_count, int max_smem_per_block);

}  // namespace symm::examples::gemm_all_scatter
