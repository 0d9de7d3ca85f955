#pragma once
// The planner's cost model (cost_model.cc), shared by the plan (plan.cc) and its copy
// choices (copy_choice.cc): which configurations the heuristic weighs, how fast each runs
// a full tile, and what a decomposition of a problem costs.
#include <span>

#include "symm/gemm/plan.hpp"

namespace symm::gemm::detail {

// A configuration the heuristic considers, with its full-tile throughput relative to
// 128x256x64s4 on an H200.
struct Candidate {
  KernelConfig config;
  double efficiency;
};

// In the order ties go to (the first is the default configuration).
std::span<const Candidate> heuristic_candidates();

// Full-tile throughput of c relative to 128x256x64s4 (B's layout: a K x N tail box costs).
double efficiency(const KernelConfig& c, BLayout b_layout);

// predicted_cost of c on p, never below the time memory takes to move A, B, C and the
// split partials once at d's memory bandwidth.
double problem_cost(const GemmProblem& p, const KernelConfig& c, const TileScheduler& s, int num_blocks,
                    const DeviceLimits& d);

}  // namespace symm::gemm::detail
