// Rules and heuristic of the GEMM: which kernel can run a problem, and which should.
#include "symm/gemm/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>

#include "copy_choice.hpp"
#include "cost_model.hpp"
#include "plan_rules.hpp"
#include "symm/common/error.hpp"

namespace symm::gemm {
namespace {

using detail::aligned16;
using detail::clamp_notes;
using detail::copy_choices;
using detail::CopyChoice;
using detail::cost_with;
using detail::fallback_plan;
using detail::kMaxSplits;
using detail::kMinKItersPerSplit;
using detail::kMinTailSplitKIters;
using detail::kMinSplitGain;
using detail::kMinTailSplitGain;
using detail::heuristic_candidates;
using detail::kPartialKIters;
using detail::problem_cost;


// Blocks: gemm_sms (or every SM).
int blocks_for(const GemmOptions& o, const DeviceLimits& d) {
  return o.num_blocks > 0 ? std::min(o.num_blocks, d.sm_count) : d.sm_count;
}

// Blocks of configuration c: whole clusters of them, as many as can be resident at once
// (a persistent block that waits for a free SM would run its share after the others).
int blocks_for(const KernelConfig& c, const GemmOptions& o, const DeviceLimits& d) {
  const int resident = d.cluster_resident_blocks(c.cluster_blocks());
  return std::min(blocks_for(o, d), resident) / c.cluster_blocks() * c.cluster_blocks();
}

// Blocks that schedule s of configuration c keeps busy out of `blocks`: a stream-K worker
// (a cluster) per range, otherwise no more than the units' blocks.
int blocks_used(const KernelConfig& c, const TileScheduler& s, int blocks) {
  return s.stream_k() ? s.stream_k_workers * c.cluster_blocks() : std::min(blocks, s.num_units() * c.cluster_blocks());
}

// Ping-pong, swapped and three-consumer kernels take whole tiles only (config.hpp): not
// with forced splits, stream-K or a forced split of the last wave.
bool schedule_allowed(const KernelConfig& c, const GemmOptions& o) {
  return !c.whole_tiles_only() || (o.k_splits <= 1 && o.stream_k != 1 && o.split_tail != 1);
}

bool schedule_wanted(const KernelConfig& c, const GemmOptions& o) {
  return (o.pingpong == -1 || o.pingpong == int(c.pingpong())) &&
         (o.clusters == -1 || o.clusters == int(c.clustered()));
}

// Whether a cluster of c spans more tiles than p has along M or N: its blocks past the edge
// share their operand tile with none that computes, so the cluster costs its lockstep for
// nothing (64x128 ping-pong pairs on 64 x 4096 x 4096 ran 0.73-0.76 of cuBLASLt where single
// blocks ran 0.83, bench/results/gemm/2026-12-02-floor-4963d4a).
bool cluster_wider_than_problem(const KernelConfig& c, const GemmProblem& p) {
  return c.cluster_m > ceil_div(p.m, c.blk_m) || c.cluster_n > ceil_div(p.n, c.blk_n);
}

// gsize_m beyond the tile rows is one group, the same order: clamped, so that the
// scheduler's gsize_m x tiles_n stays within int for any SYMM_GEMM_GSIZE_M.
// A unit of a cluster configuration is the cluster's tiles.
TileScheduler schedule(const KernelConfig& c, const GemmProblem& p, int splits, int gsize_m) {
  const int rows = int(ceil_div(p.m, c.unit_rows()));
  return TileScheduler::make(p.m, p.n, p.k, c.unit_rows(), c.unit_cols(), c.blk_k, splits, std::min(gsize_m, rows));
}

// Stream-K over `workers`: every full wave of tiles but the last goes data-parallel, and
// the last one to two waves' worth are cut into equal ranges, so no wave runs part-empty.
TileScheduler stream_k_schedule(TileScheduler s, int workers) {
  const int waves = workers > 0 ? s.num_tiles() / workers : 0;
  s.stream_k_workers = workers;
  s.dp_tiles = waves >= 2 ? (waves - 1) * workers : 0;
  return s;
}

// Whether stream-K can run s, and (unless forced) may help: there is a partial wave to
// even out after at least one data-parallel wave. Stream-K over every tile lost to
// split-K by up to 1.6x on skinny shards (docs/gemm.md, run 3): L2 stopped serving A.
bool stream_k_fits(const TileScheduler& s, int workers, bool forced) {
  if (workers <= 0 || s.stream_k_iters() < std::int64_t(workers) * kMinKItersPerSplit ||
      s.total_iters() > std::numeric_limits<std::int32_t>::max())
    return false;
  return forced || (s.dp_tiles > 0 && s.num_tiles() % workers != 0);
}

// s with K split `splits` ways: every tile, or (tail) only the tiles of the part-empty last
// wave, after the full waves' whole tiles (scheduler.hpp). One split is data-parallel.
TileScheduler with_splits(TileScheduler s, int splits, bool tail, int workers) {
  s.k_splits = std::min(splits, s.k_iters);
  s.dp_tiles = tail && s.k_splits > 1 && workers > 0 ? s.num_tiles() / workers * workers : 0;
  return s;
}

// Whether the tail split of s over `workers` leaves something to split after a full wave.
bool tail_split_fits(const TileScheduler& s, int workers) {
  return workers > 0 && s.num_tiles() > workers && s.num_tiles() % workers != 0;
}

// Whether `splits` units of s's K iterations are long enough for the heuristic to split the
// last wave into them (kMinTailSplitKIters).
bool long_tail_units(const TileScheduler& s, int splits) { return s.k_iters / splits >= kMinTailSplitKIters; }

// The split-K schedules worth weighing: every split factor the K iterations allow, of
// every tile (unless split_tail is 1) and, where a part-empty last wave follows full ones,
// of its tiles only (unless split_tail is 0; the heuristic's in units of kMinTailSplitKIters
// or more).
std::vector<TileScheduler> split_schedules(const TileScheduler& unsplit, int workers, int split_tail) {
  std::vector<TileScheduler> splits;
  const int max_splits = std::clamp(unsplit.k_iters / kMinKItersPerSplit, 1, kMaxSplits);
  for (int n = 2; n <= max_splits; ++n) {
    if (split_tail != 1) splits.push_back(with_splits(unsplit, n, false, workers));
    if (split_tail != 0 && tail_split_fits(unsplit, workers) && (split_tail == 1 || long_tail_units(unsplit, n)))
      splits.push_back(with_splits(unsplit, n, true, workers));
  }
  return splits;
}

// The decomposition of config c (data-parallel, split-K or stream-K) with the lowest cost.
TileScheduler best_schedule(const KernelConfig& c, const GemmProblem& p, const GemmOptions& o,
                            int blocks) {
  const TileScheduler unsplit = schedule(c, p, 1, o.gsize_m);
  if (c.whole_tiles_only()) return unsplit;
  const int workers = blocks / c.cluster_blocks();
  const bool tail = o.split_tail == 1 && tail_split_fits(unsplit, workers);
  if (o.k_splits > 0) return with_splits(unsplit, o.k_splits, tail, workers);
  const TileScheduler stream = stream_k_schedule(unsplit, workers);
  if (o.stream_k == 1 && stream_k_fits(stream, workers, true)) return stream;
  const double base = predicted_cost(c, unsplit, blocks, p.b_layout);
  TileScheduler best = unsplit;
  double best_cost = tail ? std::numeric_limits<double>::infinity() : base;  // forced: the cheapest tail split
  // Splitting every tile must promise kMinSplitGain (the model ignores its waits), the last
  // wave split kMinTailSplitGain (its units are long: its gain came out as predicted).
  for (const TileScheduler& split : split_schedules(unsplit, workers, o.split_tail)) {
    const double cost = predicted_cost(c, split, blocks, p.b_layout);
    const double gain = split.dp_tiles > 0 ? kMinTailSplitGain : kMinSplitGain;
    if (cost < best_cost && (tail || cost < gain * base)) best = split, best_cost = cost;
  }
  if (o.stream_k != 0 && stream_k_fits(stream, workers, false)) {
    const double cost = predicted_cost(c, stream, blocks, p.b_layout);
    if (cost < best_cost && cost < kMinSplitGain * base) best = stream;
  }
  return best;
}

Plan wgmma_plan(const KernelConfig& c, const GemmProblem& p, const GemmOptions& o,
                const DeviceLimits& d, std::string reason) {
  Plan plan;
  plan.kind = KernelKind::wgmma;
  plan.config = c;
  const int blocks = blocks_for(c, o, d);
  plan.sched = best_schedule(c, p, o, blocks);
  plan.num_blocks = blocks_used(c, plan.sched, blocks);
  plan.reason = std::move(reason) + clamp_notes(o, plan, d);
  return plan;
}

}  // namespace

namespace detail {

// Knobs asking for more than the problem or the device has get what there is (a refusal
// would make one setting fail on every small problem); the reason (verbose line) says so.
std::string clamp_notes(const GemmOptions& o, const Plan& plan, const DeviceLimits& d) {
  std::string notes;
  const bool wgmma = plan.kind == KernelKind::wgmma;
  if (o.k_splits > plan.sched.k_splits)
    notes += fmt::format("; k_splits={} (SYMM_GEMM_SPLITS) clamped to {}, the most {} K iterations allow",
                         o.k_splits, plan.sched.k_splits, plan.sched.k_iters);
  if (wgmma && o.num_blocks > d.sm_count)
    notes += fmt::format("; num_blocks={} (SYMM_GEMM_SMS) clamped to the {} SMs", o.num_blocks, d.sm_count);
  if (const int asked = blocks_for(o, d); wgmma && blocks_for(plan.config, o, d) != asked)
    notes += fmt::format("; {} blocks ({}) rounded down to whole clusters of {} that can be resident at once",
                         asked, o.num_blocks > 0 ? "SYMM_GEMM_SMS" : "one per SM", plan.config.cluster_blocks());
  if (!wgmma && o.num_blocks > 0)
    notes += "; num_blocks (SYMM_GEMM_SMS) does not apply to the fallback (a block per tile and split)";
  if (wgmma && o.split_tail == 1 && (plan.sched.dp_tiles == 0 || plan.sched.stream_k()))
    notes += fmt::format("; split_tail=1 (SYMM_GEMM_SPLIT_TAIL) not used: {}",
                         plan.config.whole_tiles_only() ? "this configuration computes whole tiles only"
                                                        : "no part-empty wave of tiles follows a full one");
  if (wgmma && o.stream_k == 1 && !plan.sched.stream_k())
    notes += fmt::format("; stream_k=1 (SYMM_GEMM_STREAM_K) not used: {}",
                         o.k_splits > 0 ? "k_splits (SYMM_GEMM_SPLITS) is given"
                                        : "fewer than 8 K iterations per block");
  return notes;
}

}  // namespace detail

std::string validate(const GemmProblem& p) {
  if (p.m < 1 || p.n < 1 || p.k < 1) return fmt::format("empty problem M={} N={} K={}", p.m, p.n, p.k);
  if (p.m > kMaxExtent || p.n > kMaxExtent || p.k > kMaxExtent)
    return fmt::format("M, N and K must be below 2^31 (M={} N={} K={})", p.m, p.n, p.k);
  if (!p.a || !p.b || !p.c) return "A, B and C must be non-null device pointers";
  if (p.in_dtype == DType::fp32) return "inputs must be bf16 or fp16";
  if (p.out_dtype != DType::fp32 && p.out_dtype != p.in_dtype)
    return fmt::format("output must be the input type ({}) or fp32, not {}", to_string(p.in_dtype),
                       to_string(p.out_dtype));
  if (p.lda < p.k) return fmt::format("lda={} is below K={}", p.lda, p.k);
  const std::int64_t b_row = p.b_layout == BLayout::kn ? p.n : p.k;
  if (p.ldb < b_row) return fmt::format("ldb={} is below the row length {} of B ({})", p.ldb, b_row,
                                        to_string(p.b_layout));
  if (p.ldc < p.n) return fmt::format("ldc={} is below N={}", p.ldc, p.n);
  return {};
}

std::string validate(const GemmOptions& o) {
  if (o.num_blocks < 0) return fmt::format("num_blocks (SYMM_GEMM_SMS) is {}; give >= 1, or 0 for every SM", o.num_blocks);
  if (o.gsize_m < 1) return fmt::format("gsize_m (SYMM_GEMM_GSIZE_M) is {}; give >= 1", o.gsize_m);
  if (o.k_splits < 0)
    return fmt::format("k_splits (SYMM_GEMM_SPLITS) is {}; give >= 1, or 0 for the heuristic's", o.k_splits);
  if (o.stream_k < -1 || o.stream_k > 1)
    return fmt::format("stream_k (SYMM_GEMM_STREAM_K) is {}; give 0 (never), -1 (heuristic) or 1 (always)",
                       o.stream_k);
  if (o.pingpong < -1 || o.pingpong > 1)
    return fmt::format("pingpong (SYMM_GEMM_PINGPONG) is {}; give -1 (heuristic), 0 (never) or 1 (only)",
                       o.pingpong);
  if (o.clusters < -1 || o.clusters > 1)
    return fmt::format("clusters (SYMM_GEMM_CLUSTERS) is {}; give -1 (heuristic), 0 (never) or 1 (only)",
                       o.clusters);
  if (o.clusters == 1 && o.num_blocks == 1)
    return "clusters=1 (SYMM_GEMM_CLUSTERS) runs blocks in clusters of 2 or more: num_blocks=1 (SYMM_GEMM_SMS) "
           "is too few; give 2 or more, or 0 for every SM";
  if (o.split_tail < -1 || o.split_tail > 1)
    return fmt::format("split_tail (SYMM_GEMM_SPLIT_TAIL) is {}; give 0 (never), -1 (heuristic) or 1 (always)",
                       o.split_tail);
  if (o.pingpong == 1 && (o.k_splits > 1 || o.stream_k == 1 || o.split_tail == 1))
    return "pingpong=1 (SYMM_GEMM_PINGPONG) computes whole tiles only: it cannot be combined with k_splits > 1 "
           "(SYMM_GEMM_SPLITS), stream_k=1 (SYMM_GEMM_STREAM_K) or split_tail=1 (SYMM_GEMM_SPLIT_TAIL)";
  if (o.stream_k == 1 && o.split_tail == 1)
    return "stream_k=1 (SYMM_GEMM_STREAM_K) and split_tail=1 (SYMM_GEMM_SPLIT_TAIL) both decide how the last "
           "wave of tiles is spread: give one of them";
  return {};
}

std::string tma_incompatibility(const GemmProblem& p) {
  if (!aligned16(p.a) || !aligned16(p.b) || !aligned16(p.c))
    return "A, B and C must start on 16-byte boundaries for TMA";
  const int in = dtype_bytes(p.in_dtype), out = dtype_bytes(p.out_dtype);
  if (p.lda * in % 16 != 0) return fmt::format("A's row stride lda*{}={} B is not a multiple of 16", in, p.lda * in);
  if (p.ldb * in % 16 != 0) return fmt::format("B's row stride ldb*{}={} B is not a multiple of 16", in, p.ldb * in);
  if (p.ldc * out % 16 != 0)
    return fmt::format("C's row stride ldc*{}={} B is not a multiple of 16", out, p.ldc * out);
  return {};
}

std::string can_implement(const KernelConfig& c, const GemmProblem& p, const DeviceLimits& d) {
  if (d.cc_major != 9 || d.cc_minor != 0)
    return fmt::format("WGMMA kernels are built for sm_90a; this device is sm_{}{}", d.cc_major, d.cc_minor);
  if (!is_built(c)) return fmt::format("configuration {} is not built into the library", to_string(c));
  if (c.smem_bytes() > d.max_smem_per_block)
    return fmt::format("configuration {} needs {} B of shared memory per block; the device allows {}",
                       to_string(c), c.smem_bytes(), d.max_smem_per_block);
  if (auto why = validate(p); !why.empty()) return why;
  return tma_incompatibility(p);
}


namespace {

Plan with_copy_notes(Plan plan, const OperandCopies& copies) {
  plan.copies = copies;
  if (copies.any()) plan.reason += "; " + copies.describe();
  return plan;
}

}  // namespace

std::vector<Plan> candidate_plans(const GemmProblem& given, const GemmOptions& o, const DeviceLimits& d,
                                  int count) {
  std::vector<std::pair<double, Plan>> scored;
  const auto add_candidates = [&](const CopyChoice& choice, const KernelConfig& config) {
    const GemmProblem& p = choice.launched;
    if (!schedule_wanted(config, o) || !schedule_allowed(config, o) || !can_implement(config, p, d).empty() ||
        blocks_for(config, o, d) == 0 || (o.clusters != 1 && cluster_wider_than_problem(config, p)))
      return;
    const auto cost = [&](const TileScheduler& s, int blocks) { return cost_with(choice, config, s, blocks, d); };
    Plan plan = with_copy_notes(
        wgmma_plan(config, p, o, d, "heuristic: lowest predicted time (busiest block's K iterations, or memory's floor)"),
        choice.copies);
    // Split-K's and stream-K's costs are the least certain part of the model: the split
    // factors next to the model's, and stream-K, compete too.
    const int blocks = blocks_for(config, o, d), workers = blocks / config.cluster_blocks();
    const TileScheduler stream = stream_k_schedule(schedule(config, p, 1, o.gsize_m), workers);
    if (!config.whole_tiles_only() && o.stream_k == -1 && o.k_splits == 0 && !plan.sched.stream_k() &&
        stream_k_fits(stream, workers, false)) {
      Plan variant = plan;
      variant.sched = stream;
      variant.num_blocks = blocks_used(config, stream, blocks);
      scored.emplace_back(cost(stream, variant.num_blocks), variant);
    }
    // The factors next to the plan's, splitting what it splits (every tile, or the last wave's).
    const TileScheduler& chosen = plan.sched;
    const bool tail = chosen.dp_tiles > 0 && !chosen.stream_k();
    for (int other : {chosen.k_splits - 1, chosen.k_splits + 1}) {
      if (chosen.stream_k() || o.k_splits > 0 || chosen.k_splits == 1 ||
          (tail && o.split_tail != 1 && !long_tail_units(chosen, other)))
        continue;
      Plan variant = plan;
      variant.sched = with_splits(chosen, other, tail, workers);
      variant.num_blocks = blocks_used(config, variant.sched, blocks);
      scored.emplace_back(cost(variant.sched, variant.num_blocks), variant);
    }
    scored.emplace_back(cost(plan.sched, plan.num_blocks), std::move(plan));
  };
  for (const CopyChoice& choice : copy_choices(given, o, d))
    for (const auto& cand : heuristic_candidates()) add_candidates(choice, cand.config);
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // The tuner's few runs go to other configurations, not to a second copy choice of one.
  const auto same_but_copies = [](const Plan& a, const Plan& b) {
    return a.config == b.config && a.sched.k_splits == b.sched.k_splits && a.sched.stream_k() == b.sched.stream_k() &&
           a.sched.dp_tiles == b.sched.dp_tiles;
  };
  std::vector<Plan> plans;
  for (auto& [cost, plan] : scored) {
    if (int(plans.size()) == count) break;
    if (std::none_of(plans.begin(), plans.end(), [&](const Plan& kept) { return same_but_copies(kept, plan); })) {
      plan.model_cost = cost;
      plans.push_back(std::move(plan));
    }
  }
  return plans;
}

Plan make_plan(const GemmProblem& p, const GemmOptions& o, const DeviceLimits& d) {
  if (auto why = validate(p); !why.empty()) throw Error("symm gemm: invalid problem: " + why);
  if (auto why = validate(o); !why.empty()) throw Error("symm gemm: invalid options: " + why);
  if (o.force_fallback) return fallback_plan(p, o, d, "fallback forced (SYMM_GEMM_FORCE_FALLBACK / options)");
  const std::vector<CopyChoice> choices = copy_choices(p, o, d);
  const GemmProblem& launched = choices.front().launched;  // through the needed copies only
  if (o.config) {
    if (auto why = can_implement(*o.config, launched, d); !why.empty()) {
      if (!tma_incompatibility(launched).empty() || d.cc_major != 9)
        return fallback_plan(p, o, d, "WGMMA cannot run it: " + why);
      throw Error(
          fmt::format("symm gemm: configuration {} (SYMM_GEMM_CONFIG) refused: {}", to_string(*o.config), why));
    }
    if (o.pingpong != -1 && o.pingpong != int(o.config->pingpong()))
      throw Error(fmt::format("symm gemm: configuration {} (SYMM_GEMM_CONFIG) is {}ping-pong, but pingpong={} "
                              "(SYMM_GEMM_PINGPONG) rules that out: give a {} configuration",
                              to_string(*o.config), o.config->pingpong() ? "" : "not ", o.pingpong,
                              o.pingpong == 1 ? "ping-pong (...-pingpong)" : "cooperative"));
    if (!schedule_wanted(*o.config, o))
      throw Error(fmt::format("symm gemm: configuration {} (SYMM_GEMM_CONFIG) {} clusters, but clusters={} "
                              "(SYMM_GEMM_CLUSTERS) rules that out: give a configuration {}",
                              to_string(*o.config), o.config->clustered() ? "runs in" : "does not run in",
                              o.clusters, o.clusters == 1 ? "with a cluster (...c2, ...c2x2, ...c1x4)" : "without a cluster"));
    if (blocks_for(*o.config, o, d) == 0 && blocks_for(o, d) >= o.config->cluster_blocks())
      throw Error(fmt::format("symm gemm: configuration {} (SYMM_GEMM_CONFIG) runs its blocks in clusters "
                              "of {}, and this device can hold none at once (GPCs too small or taken): "
                              "give a configuration with smaller clusters or none",
                              to_string(*o.config), o.config->cluster_blocks()));
    if (blocks_for(*o.config, o, d) == 0)
      throw Error(fmt::format("symm gemm: configuration {} (SYMM_GEMM_CONFIG) runs its blocks in clusters "
                              "of {}, but num_blocks={} (SYMM_GEMM_SMS): give at least {} blocks, or a "
                              "configuration without a cluster",
                              to_string(*o.config), o.config->cluster_blocks(), o.num_blocks,
                              o.config->cluster_blocks()));
    if (!schedule_allowed(*o.config, o))
      throw Error(fmt::format("symm gemm: configuration {} (SYMM_GEMM_CONFIG) computes whole tiles only; "
                              "it cannot run with k_splits={} (SYMM_GEMM_SPLITS), stream_k=1 "
                              "(SYMM_GEMM_STREAM_K) or split_tail=1 (SYMM_GEMM_SPLIT_TAIL): drop those or "
                              "pick a cooperative configuration",
                              to_string(*o.config), o.k_splits));
    // The cheaper way to read straddling rows, for this configuration.
    std::pair<double, Plan> best{std::numeric_limits<double>::infinity(), Plan{}};
    for (const CopyChoice& choice : choices) {
      Plan plan = wgmma_plan(*o.config, choice.launched, o, d, "configuration given");
      const double cost = cost_with(choice, *o.config, plan.sched, plan.num_blocks, d);
      if (cost < best.first) best = {cost, with_copy_notes(std::move(plan), choice.copies)};
    }
    best.second.model_cost = best.first;
    return std::move(best.second);
  }
  if (auto why = can_implement(heuristic_candidates()[0].config, launched, d); !why.empty())
    return fallback_plan(p, o, d, "WGMMA cannot run it: " + why);
  auto plans = candidate_plans(p, o, d, 1);
  if (plans.empty())
    throw Error(fmt::format("symm gemm: no WGMMA configuration is allowed by pingpong={} (SYMM_GEMM_PINGPONG), "
                            "clusters={} (SYMM_GEMM_CLUSTERS) and num_blocks={} (SYMM_GEMM_SMS) on this "
                            "problem; relax one of them",
                            o.pingpong, o.clusters, o.num_blocks));
  return std::move(plans.front());
}

WorkspaceLayout workspace_layout(const Plan& plan) {
  const auto round = [](std::size_t bytes) { return (bytes + 255) / 256 * 256; };
  WorkspaceLayout layout;
  layout.copy_a_bytes = round(plan.copies.a.bytes());
  layout.copy_b_bytes = round(plan.copies.b.bytes());
  layout.copy_c_bytes = round(plan.copies.c.bytes());
  const TileScheduler& s = plan.sched;
  if (s.k_splits < 2 && !s.stream_k()) return layout;
  // WGMMA split-K: per (block's split tile of a unit, split but the last); stream-K: per
  // block (its one partial); counters per consumer warpgroup. Fallback: per (tile, split),
  // one counter per tile.
  const bool wgmma = plan.kind == KernelKind::wgmma;
  const std::size_t owners = s.stream_k() ? std::size_t(plan.num_blocks)
                                          : std::size_t(s.split_tiles()) * (wgmma ? plan.config.cluster_blocks() : 1);
  const std::size_t partials = s.stream_k() ? owners : owners * (s.k_splits - (wgmma ? 1 : 0));
  const std::size_t counters = owners * (wgmma ? plan.config.consumers() : 1) * sizeof(int);
  layout.counter_bytes = round(counters);
  layout.partial_bytes = round(partials * plan.config.blk_m * plan.config.blk_n * sizeof(float));
  return layout;
}

namespace {

// Where the plan's copies of operands (made for another problem) do not fit p's: a copy
// of another shape overruns its scratch or leaves rows uncopied, and an operand TMA cannot
// read that the plan does not copy fails to launch.
std::string copies_mismatch(const GemmProblem& p, const OperandCopies& planned) {
  const OperandCopies needed = required_copies(p), shapes = every_copy(p);
  for (auto [name, plan_copy, need, shape] :
       {std::tuple{"A", planned.a, needed.a, shapes.a}, {"B", planned.b, needed.b, shapes.b},
        {"C", planned.c, needed.c, shapes.c}}) {
    if (plan_copy.needed() && (plan_copy.rows != shape.rows || plan_copy.row_bytes != shape.row_bytes))
      return fmt::format("the plan copies {} as {} rows of {} bytes, but this problem's {} has {} rows of {} bytes",
                         name, plan_copy.rows, plan_copy.row_bytes, name, shape.rows, shape.row_bytes);
    if (need.needed() && !plan_copy.needed())
      return fmt::format("this problem's {} has a pointer or row stride that is not 16-byte aligned, which TMA "
                         "cannot read, and the plan makes no copy of it",
                         name);
  }
  return {};
}

}  // namespace

std::string plan_mismatch(const GemmProblem& p, const Plan& plan) {
  const KernelConfig& c = plan.config;
  const TileScheduler want = TileScheduler::make(p.m, p.n, p.k, c.unit_rows(), c.unit_cols(), c.blk_k, 1, 1);
  const TileScheduler& s = plan.sched;
  std::string why;
  if (want.tiles_m != s.tiles_m || want.tiles_n != s.tiles_n || want.k_iters != s.k_iters)
    why = fmt::format("the plan has {} x {} tiles of {} K iterations; M={} N={} K={} needs {} x {} of {}", s.tiles_m,
                      s.tiles_n, s.k_iters, p.m, p.n, p.k, want.tiles_m, want.tiles_n, want.k_iters);
  else if (plan.kind == KernelKind::fallback && !fallback_takes(c, p.b_layout))
    why = fmt::format("the plan's fallback configuration {} does not take B as {}", to_string(c),
                      to_string(p.b_layout));
  else if (plan.kind == KernelKind::fallback && plan.aligned_loads && !detail::fallback_loads_aligned(p))
    why = "the plan loads A and B 16 bytes at a time, but this problem's A or B (pointer or row stride) is not "
          "16-byte aligned";
  else if (plan.kind == KernelKind::wgmma)
    why = copies_mismatch(p, plan.copies);
  if (why.empty()) return {};
  return why + ": make the plan for this problem (Gemm::plan or tune)";
}

std::string decomposition(const TileScheduler& s) {
  if (s.stream_k()) return "stream-K";
  if (s.dp_tiles > 0 && s.k_splits > 1)
    return fmt::format("k_splits={} of the last {} tiles ({} whole)", s.k_splits, s.split_tiles(), s.dp_tiles);
  return fmt::format("k_splits={}", s.k_splits);
}

std::string describe(const GemmProblem& p, const Plan& plan) {
  const std::string kernel =
      plan.kind == KernelKind::wgmma
          ? fmt::format("wgmma {} {} blocks={} gsize_m={} ({} tiles)", to_string(plan.config),
                        decomposition(plan.sched), plan.num_blocks, plan.sched.gsize_m, plan.sched.num_tiles())
          : fmt::format("fallback mma.sync {} k_splits={} ({} loads, {} blocks)", to_string(plan.config),
                        plan.sched.k_splits, plan.aligned_loads ? "cp.async" : "element-wise",
                        plan.num_blocks);
  return fmt::format("symm gemm: M={} N={} K={} {}->{} B={} lda={} ldb={} ldc={}: {}; {}", p.m, p.n,
                     p.k, to_string(p.in_dtype), to_string(p.out_dtype), to_string(p.b_layout), p.lda,
                     p.ldb, p.ldc, kernel, plan.reason);
}

}  // namespace symm::gemm
