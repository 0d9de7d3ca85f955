#pragma once
// Which parts of a sweep can run here, decided before anything is launched or measured:
// pure functions of the point, the machine's GPU count, SM count and shared-memory
// limit (the cpu tier tests them). Whatever cannot run becomes a row with the reason.
#include <optional>
#include <string>
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
