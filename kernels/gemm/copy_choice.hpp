#pragma once
// The ways a WGMMA plan may read a problem whose A or B rows straddle 32-byte sectors: in
// place, loading them slower, or through 128-byte-pitched copies (operand_copies.hpp),
// paying for the copies; weighed per configuration by the planner (plan.cc).
#include <cstddef>
#include <vector>

#include "symm/gemm/plan.hpp"

namespace symm::gemm::detail {

// One way to read p: through the copies it needs, or through those and copies of the
// straddling inputs. `launched`: p as the kernel sees it; `extra_bytes` and
// `extra_launches`: the copies beyond the needed ones.
struct CopyChoice {
  OperandCopies copies;
  GemmProblem launched;
  Straddling straddled;  // read in place: which operands' rows straddle lines
  std::size_t extra_bytes = 0;
  int extra_launches = 0;
};

// The ways a WGMMA plan may read p; the first takes the needed copies only (none where
// copies are not allowed or no WGMMA runs).
std::vector<CopyChoice> copy_choices(const GemmProblem& p, const GemmOptions& o, const DeviceLimits& d);

// problem_cost (cost_model.hpp) of running s with config c on the problem as `choice`
// reads it, times the slower loads of straddling rows on device d, or 1 + the extra
// copies' time over the GEMM's.
double cost_with(const CopyChoice& choice, const KernelConfig& c, const TileScheduler& s, int num_blocks,
                 const DeviceLimits& d);

// How much slower config c runs on busy_blocks SMs where the rows of the operands in `s`
// straddle 32-byte sectors, on device d (its memory bandwidth).
double straddle_slowdown(const KernelConfig& c, Straddling s, BLayout b_layout, int busy_blocks,
                         const DeviceLimits& d);

}  // namespace symm::gemm::detail
