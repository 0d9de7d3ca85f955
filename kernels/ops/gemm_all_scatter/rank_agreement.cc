// Cross-rank checks of GemmAllScatter (rank_agreement.hpp).
#include "rank_agreement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <span>
#include <vector>

#include "symm/common/error.hpp"
#include "symm/host/gather.hpp"

namespace symm::ops::detail {

PlanTerms plan_terms(const AllScatterShape& shape, const AllScatterPlan* plan) {
  PlanTerms terms;
  terms.fill(kNoPlan);
  const std::int64_t given[kShapeTerms] = {shape.m, shape.n, shape.k, std::int64_t(shape.dtype),
                                           std::int64_t(shape.b_layout)};
  std::copy(std::begin(given), std::end(given), terms.begin());
  if (!plan) return terms;
  const gemm::KernelConfig& c = plan->config;
  const gemm::TileScheduler& s = plan->gemm.sched;
  const std::int64_t planned[] = {std::int64_t(plan->variant), c.blk_m, c.blk_n, c.blk_k, c.stages,
                                  std::int64_t(c.schedule), c.cluster_m, c.cluster_n,
                                  plan->gemm_sms, plan->comm_sms, plan->gsize_m, plan->tiles, plan->peers,
                                  s.k_splits, s.stream_k_workers, s.dp_tiles};
  static_assert(kShapeTerms + sizeof(planned) / sizeof(planned[0]) == kPlanTermNames.size(), "a name per term");
  std::copy(std::begin(planned), std::end(planned), terms.begin() + kShapeTerms);
  return terms;
}

namespace {

// Shapes first: a rank given another shape may well have planned differently, or not at all.
std::string shape_disagreement(std::span<const PlanTerms> per_rank) {
  for (std::size_t r = 1; r < per_rank.size(); ++r)
    for (std::size_t t = 0; t < kShapeTerms; ++t)
      if (per_rank[r][t] != per_rank[0][t])
        return fmt::format("symm gemm_all_scatter: the ranks were given different shapes: {} is {} on rank 0 "
                           "and {} on rank {}; every rank must construct the op with the same AllScatterShape",
                           kPlanTermNames[t], per_rank[0][t], per_rank[r][t], r);
  return {};
}

// The same shape planned differently: other options, or GPUs with other limits.
std::string plan_disagreement(std::span<const PlanTerms> per_rank) {
  for (std::size_t r = 0; r < per_rank.size(); ++r)
    if (per_rank[r][kShapeTerms] == kNoPlan)
      return fmt::format("symm gemm_all_scatter: rank {} could not plan the op (its own error says why), so no "
                         "rank runs it",
                         r);
  for (std::size_t r = 1; r < per_rank.size(); ++r)
    for (std::size_t t = kShapeTerms; t < kPlanTermNames.size(); ++t)
      if (per_rank[r][t] != per_rank[0][t])
        return fmt::format("symm gemm_all_scatter: the ranks planned different ops: {} is {} on rank 0 and {} "
                           "on rank {}; every rank must construct it with the same options, on GPUs of the "
                           "same kind (or give config, gemm_sms and comm_sms, so that no rank's GPU decides "
                           "them)",
                           kPlanTermNames[t], per_rank[0][t], per_rank[r][t], r);
  return {};
}

}  // namespace

void check_ranks_agree(Team& team, const PlanTerms& mine, const std::string& refusal) {
  const std::vector<PlanTerms> all = gather(team, mine);
  if (std::string problem = shape_disagreement(all); !problem.empty()) throw Error(problem);
  if (mine[kShapeTerms] == kNoPlan) throw Error(refusal);
  if (std::string problem = plan_disagreement(all); !problem.empty()) throw Error(problem);
}

void check_same_c_offset(Team& team, std::int64_t mine, const std::string& problem) {
  const std::vector<std::int64_t> all = gather(team, mine);
  if (mine == kRefused) throw Error(problem);
  for (int r = 0; r < team.world(); ++r) {
    if (all[r] == kRefused)
      throw Error(fmt::format("symm gemm_all_scatter: rank {} refused its C or operands (its own error says why), "
                              "so no rank runs",
                              r));
  }
  if (const int r = first_rank_unlike(all, all[0]); r >= 0)
    throw Error(fmt::format("symm gemm_all_scatter: C lies at heap offset {} on rank 0 and {} on rank {}; the "
                            "peers store into C at this rank's offset, so every rank must pass the C it "
                            "allocated at the same point of its heap allocations (the same sizes in the "
                            "same order on every rank)",
                            all[0], all[r], r));
}

}  // namespace symm::ops::detail
