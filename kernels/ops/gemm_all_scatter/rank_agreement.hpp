#pragma once
// What the ranks of one GemmAllScatter must have in common, compared across ranks on the
// host before any of it reaches the GPU. Each rank's kernels store into the same tiles of
// every peer's C and wait for the peers' flags by tile id: ranks that planned different
// problems, tiles or grids would write over each other's tiles or wait for flags that
// never come (until SYMM_WAIT_TIMEOUT_MS ends it with a trap). Every check is collective
// and every rank throws the same verdict, so no rank goes on to wait for one that stopped.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "symm/host/team.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::ops::detail {

// The shape, and the plan each rank made of it and its options, as named numbers.
inline constexpr std::array<std::string_view, 21> kPlanTermNames = {
    "M", "N", "K", "dtype", "b_layout",                                    // the shape
    "variant", "BLK_M", "BLK_N", "BLK_K", "stages", "schedule", "cluster_m", "cluster_n",
    "gemm_sms", "comm_sms", "gsize_m", "tiles", "peers",                   // the plan
    "k_splits", "stream_k_workers", "dp_tiles"};                           // its tile schedule
inline constexpr int kShapeTerms = 5;  // the first five: what the caller gave
using PlanTerms = std::array<std::int64_t, kPlanTermNames.size()>;

// `plan` null: this rank could not plan the shape (its plan terms are then kNoPlan).
PlanTerms plan_terms(const AllScatterShape& shape, const AllScatterPlan* plan);
inline constexpr std::int64_t kNoPlan = -1;

// Collective: throws symm::Error on every rank when the ranks' terms differ, naming the
// first difference (shapes first, then a rank without a plan, then the plans): the term,
// rank 0's value and the other rank's, and what to change. A rank without a plan throws
// `refusal`, why it has none.
void check_ranks_agree(Team& team, const PlanTerms& mine, const std::string& refusal);

// C's offset on this rank's heap, or kRefused where this rank refuses its C or operands.
inline constexpr std::int64_t kRefused = -1;
// Collective: throws symm::Error on every rank unless every rank's C lies on its heap at
// the same offset and no rank refused (`problem`: why this rank refused, the message it
// throws; the others name the rank).
void check_same_c_offset(Team& team, std::int64_t mine, const std::string& problem);

}  // namespace symm::ops::detail
