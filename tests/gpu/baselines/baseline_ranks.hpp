#pragma once
// The rank body of the baseline tests: builds every baseline for a shape and runs each a
// few times on poisoned C, alternating two input sets so that a C left from the run
// before cannot pass.
#include <string>
#include <vector>

#include "harness.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::test {

struct BaselineCase {
  ops::AllScatterShape shape;
  int iterations = 4;
  std::vector<std::string> must_run;      // baselines that must be built and pass
  std::vector<std::string> must_skip;     // baselines that must be skipped, with a reason
  std::string skip_reason_mentions;       // a phrase every skip reason must contain ("" any)
};

// 0 when every baseline built leaves, after each run, every rank with the same C (bit for
// bit) within tolerance of an fp32-output cuBLASLt reference, and the built and skipped
// sets are as the case says.
int baselines_match_reference(Runtime& rt, const BaselineCase& c);

}  // namespace symm::test
