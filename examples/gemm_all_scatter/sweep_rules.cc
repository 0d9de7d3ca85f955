// The skip rules of a sweep (sweep_rules.hpp).
#include "sweep_rules.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace symm::examples::gemm_all_scatter {
namespace {

Row skipped_row(const std::string& name, const std::optional<gemm::KernelConfig>& config,
                std::string reason) {
  Row row;
  row.name = name;
  row.requested = name;
  row.config = config;
  row.skipped = std::move(reason);
  return row;
}

}  // namespace

std::string world_skip_reason(int world, int visible_gpus) {
  if (world <= std::max(visible_gpus, 2)) return {};
  return fmt::format("{} ranks need {} GPUs and {} {} visible (ranks share a GPU only in the "
                     "2-rank correctness run)",
                     world, world, visible_gpus, visible_gpus == 1 ? "is" : "are");
}

std::string config_skip_reason(const ops::AllScatterShape& shape, int world,
                               const gemm::KernelConfig& config, int max_smem_per_block) {
  const std::int64_t shard = shape.n / world;
  const std::string name = gemm::to_string(config);
  if (shard < config.blk_n)
    return fmt::format("{}: each rank's shard has N/world = {} columns, fewer than BLK_N = {}", name,
                       shard, config.blk_n);
  if (config.smem_bytes() > max_smem_per_block)
    return fmt::format("{}: needs {} bytes of shared memory per block, over the GPU's {}", name,
                       config.smem_bytes(), max_smem_per_block);
  if (!gemm::is_built(config))
    return fmt::format("{}: configuration not built; built: {}", name, built_tile_names());
  return {};
}

CommandLine point_command_line(const CommandLine& base, const SweepPreset& preset, const SweepPoint& point) {
  CommandLine cl = base;
  cl.shape = point.shape;
  cl.variants = preset.variants;
  cl.validate = preset.validate;
  cl.benchmark = true;
  // One rank has no peer: its baselines would scatter nothing while the variants push to
  // loopback copies, so a speedup over them would mislead.
  cl.baselines = preset.baselines && point.world > 1;
  cl.op.gsize_m = preset.gsize_m;
  cl.op.loopback_peers = point.world == 1 ? preset.loopback_peers : 0;
  if (!base.counts_given) {
    cl.n_warmup = preset.n_warmup;
    cl.n_repeat = preset.n_repeat;
  }
  return cl;
}

LaunchMemory plan_launch_memory(const std::vector<CommandLine>& points, int world, std::uint64_t room) {
  LaunchMemory plan;
  std::vector<std::size_t> alone;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (std::string why = memory_problem(points[i], world, room); !why.empty()) {
      plan.skipped.emplace_back(i, std::move(why));
      continue;
    }
    alone.push_back(i);
    const std::uint64_t given = heap_size_given(points[i]);
    plan.heap = std::max(plan.heap, given > 0 ? given : heap_bytes_needed(points[i], world));
  }
  for (std::size_t i : alone) {
    CommandLine beside = points[i];
    beside.heap_size = plan.heap;
    if (memory_problem(beside, world, room).empty()) plan.now.push_back(i);
  }
  return plan;
}

PointPlan plan_point(const CommandLine& cl, const std::vector<std::optional<gemm::KernelConfig>>& configs,
                     int world, int sm_count, int max_smem_per_block) {
  PointPlan plan;
  CommandLine shape_only = cl;
  shape_only.variants.clear();
  if (std::string why = check_combination(shape_only, world, sm_count); !why.empty()) {
    plan.skipped.push_back(skipped_row("", std::nullopt, std::move(why)));
    return plan;
  }
  for (const std::optional<gemm::KernelConfig>& config : configs) {
    if (config) {
      if (std::string why = config_skip_reason(cl.shape, world, *config, max_smem_per_block); !why.empty()) {
        plan.skipped.push_back(skipped_row("", config, std::move(why)));
        continue;
      }
    }
    ContenderGroup group{config, {}};
    for (const RequestedVariant& v : cl.variants) {
      CommandLine one = cl;
      one.op.config = config;
      one.variants = {v};
      if (std::string why = check_combination(one, world, sm_count); !why.empty())
        plan.skipped.push_back(skipped_row(requested_name(v), config, std::move(why)));
      else
        group.variants.push_back(v);
    }
    if (!group.variants.empty()) plan.groups.push_back(std::move(group));
  }
  return plan;
}

}  // namespace symm::examples::gemm_all_scatter
