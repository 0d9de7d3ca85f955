#pragma once
// How one rank validates and times a contender (a variant, gemm_alone or a baseline):
// both are collectives, every rank calls them in the same order.
#include <cuda_runtime_api.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "operands.hpp"
#include "reference.hpp"
#include "symm/baselines/output_check.hpp"
#include "symm/host/bench.hpp"
#include "symm/host/runtime.hpp"

namespace symm::examples::gemm_all_scatter {

// Enqueues one run of a contender on the stream.
using RunFn = std::function<void()>;
// After a failed synchronisation: what the device left to say (empty: nothing).
using FailureReportFn = std::function<std::string()>;

// Rounds the timed iterations of every contender are split into (see driver.cc).
inline constexpr int kTimingRounds = 5;

// Round `round`'s share of `counts`: n_repeat split as evenly as possible, warm-up
// likewise (at least one per round: each round starts its contender afresh).
BenchOptions round_share(const BenchOptions& counts, int round, int rounds);

// Two timings of one contender as one: every rank's samples concatenated, the figures
// and the headline (slowest rank's median) recomputed from them.
CrossRankSummary combine(const CrossRankSummary& a, const CrossRankSummary& b);

class Measurement {
 public:
  // `reference` is null without --validate; `device` times on `stream` (one for the whole
  // point: its L2 flush buffer is allocated once, not per contender and round).
  Measurement(Runtime& rt, const CommandLine& cl, const Operands& operands,
              const Reference* reference, cudaStream_t stream, BenchOptions counts,
              BenchDevice& device);

  Runtime& runtime() { return rt_; }
  cudaStream_t stream() const { return stream_; }
  const Operands& operands() const { return operands_; }
  const CommandLine& command_line() const { return cl_; }
  bool validating() const { return reference_ != nullptr; }
  bool benchmarking() const { return cl_.benchmark; }

  // Poisons C (and `extra_outputs`, C-sized copies such as loopback peers), runs once,
  // and checks every rank's C against the reference. Rank 0 prints the verdict of every
  // rank under `what`. Returns whether every rank passed (the same on every rank).
  bool validate(const std::string& what, const RunFn& run, const FailureReportFn& report,
                const std::vector<void*>& extra_outputs = {});

  // do_bench of `run` on every rank, summarised across ranks.
  CrossRankSummary time(const RunFn& run, const FailureReportFn& report);

 private:
  baselines::Mismatch check_outputs(const std::vector<void*>& extra_outputs, int& where);

  Runtime& rt_;
  const CommandLine& cl_;
  Operands operands_;
  const Reference* reference_;
  cudaStream_t stream_;
  BenchOptions counts_;
  BenchDevice& device_;
};

}  // namespace symm::examples::gemm_all_scatter
