// The mma.sync fallback's plan (plan_rules.hpp): its tile shape and its split along K.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "plan_rules.hpp"
#include "symm/common/error.hpp"

namespace symm::gemm::detail {
namespace {

// The fallback's configurations: a tile shape, its throughput relative to 128x128 (a
// guess from its narrower warp tiles), the blocks resident per SM.
struct FallbackCandidate {
  KernelConfig config;
  double efficiency;
  int blocks_per_sm;
};
// The fallback's grid is (tile columns, tile rows, splits): CUDA allows 65535 in y and z.
constexpr int kMaxGridY = 65535;
constexpr int kMaxGridZ = 65535;
constexpr FallbackCandidate kFallbackCandidates[] = {
    {FallbackConfig::desc, 1.0, FallbackConfig::BLOCKS_PER_SM},
    {FallbackNarrowConfig::desc, 0.95, FallbackNarrowConfig::BLOCKS_PER_SM}};

// Split-K factor of a fallback tile shape and its cost: the fewest waves x (K-tiles per
// split + the partial's cost), over the blocks resident at once.
std::pair<int, double> fallback_splits(const TileScheduler& s, const GemmOptions& o,
                                       const DeviceLimits& d, int blocks_per_sm) {
  const double slots = double(d.sm_count) * blocks_per_sm;
  auto cost = [&](int splits) {
    return std::ceil(double(s.num_tiles()) * splits / slots) *
           (std::ceil(double(s.k_iters) / splits) + (splits > 1 ? kPartialKIters : 0));
  };
  if (o.k_splits > 0) {
    const int splits = std::min({o.k_splits, s.k_iters, kMaxGridZ});
    return {splits, cost(splits)};
  }
  int best = 1;
  for (int splits = 2; splits <= std::min(kMaxSplits, s.k_iters / kMinKItersPerSplit); ++splits)
    if (cost(splits) < kMinSplitGain * cost(best)) best = splits;
  return {best, cost(best)};
}

}  // namespace

// The fallback plan: the configuration given with force_fallback, else the one with the
// lowest cost that takes B's layout.
Plan fallback_plan(const GemmProblem& p, const GemmOptions& o, const DeviceLimits& d,
                   std::string reason) {
  Plan plan;
  plan.kind = KernelKind::fallback;
  plan.aligned_loads = fallback_loads_aligned(p);
  plan.reason = std::move(reason);
  double best_cost = std::numeric_limits<double>::max();
  for (const auto& cand : kFallbackCandidates) {
    const KernelConfig& c = cand.config;
    if (!fallback_takes(c, p.b_layout) || (o.force_fallback && o.config && *o.config != c)) continue;
    TileScheduler sched = TileScheduler::make(p.m, p.n, p.k, c.blk_m, c.blk_n, c.blk_k, 1, 1);
    const auto [splits, cost] = fallback_splits(sched, o, d, cand.blocks_per_sm);
    const double scaled = cost * c.blk_m * c.blk_n / cand.efficiency;
    if (scaled >= best_cost) continue;
    best_cost = scaled;
    sched.k_splits = splits;
    plan.config = c;
    plan.sched = sched;
    plan.num_blocks = sched.num_units();
  }
  if (plan.num_blocks == 0)
    throw Error(fmt::format("symm gemm: {} (SYMM_GEMM_CONFIG with SYMM_GEMM_FORCE_FALLBACK) is not a "
                            "fallback configuration for B as {} (built: {} for both layouts, {} for N x K)",
                            to_string(*o.config), to_string(p.b_layout), to_string(FallbackConfig::desc),
                            to_string(FallbackNarrowConfig::desc)));
  // Row tiles are the grid's y extent (launch_fallback.cuh).
  if (plan.sched.tiles_m > kMaxGridY)
    throw Error(fmt::format("symm gemm: M={} is {} row tiles of {} for the mma.sync fallback, whose grid takes at "
                            "most {} (M up to {}): run it with WGMMA on a Hopper GPU (unset "
                            "SYMM_GEMM_FORCE_FALLBACK; SYMM_GEMM_OPERAND_COPIES=1 for operands TMA cannot read), "
                            "or split M",
                            p.m, plan.sched.tiles_m, plan.config.blk_m, kMaxGridY,
                            std::int64_t(kMaxGridY) * plan.config.blk_m));
  plan.reason += clamp_notes(o, plan, d);
  return plan;
}

}  // namespace symm::gemm::detail
