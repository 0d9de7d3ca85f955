#pragma once
// The GEMM entry point.
//
//   symm::gemm::Gemm gemm;                  // options from SYMM_GEMM_* variables
//   gemm.run(problem, stream);              // plans, then launches on the stream
//
// A Gemm owns the scratch of the plans it ran (split-K counters and partials, operand
// copies); use one Gemm per stream. Its launches can be captured into CUDA graphs once
// the Gemm has run each captured plan outside a capture (a capture cannot allocate the
// scratch); the graphs stay valid while the Gemm lives, even after it ran larger plans.
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "symm/gemm/params.hpp"
#include "symm/gemm/plan.hpp"
#include "symm/gemm/tensor_maps.hpp"
#include "symm/gemm/wait_record.hpp"
#include "symm/host/cuda_resources.hpp"

namespace symm::gemm {

// How many of the heuristic's best plans Gemm::tune times by default.
inline constexpr int kTuneCandidates = 6;

class Gemm {
 public:
  explicit Gemm(GemmOptions options = GemmOptions::from_env());
  ~Gemm();
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  const GemmOptions& options() const { return options_; }
  const DeviceLimits& limits() const { return limits_; }

  Plan plan(const GemmProblem& p) const { return make_plan(p, options_, limits_); }
  // Plans p, or runs the plan of the last problem it planned if p is that problem (a
  // layer's GEMM runs the same problem every step; planning takes 10-70 us of host time).
  void run(const GemmProblem& p, cudaStream_t stream) { run(p, planned(p), stream); }
  // A plan runs other operands of its problem (other addresses, aligned as its own
  // were); one made for another problem is refused, saying why (plan_mismatch).
  void run(const GemmProblem& p, const Plan& plan, cudaStream_t stream);

  // The fastest of the heuristic's best `candidates` plans, timed over at least
  // `runs_at_least` launches each on `stream` (it writes C; short problems get up to 8x as
  // many, symm/host/bench.hpp's fastest_of): the way cuBLAS users pick among cublasLt's
  // candidates. The heuristic's own plan stays unless another runs at least 2 % faster:
  // the choice is reused, and noise must not make it.
  // The choice is kept in the plan cache (plan_cache.hpp, SYMM_GEMM_PLAN_CACHE): a later
  // tune of the same problem, by any process or rank, returns it without timing.
  Plan tune(const GemmProblem& p, cudaStream_t stream, int candidates = kTuneCandidates, int runs_at_least = 5);

  // After a synchronisation failed with a launch failure: which of this Gemm's device
  // waits outlasted SYMM_WAIT_TIMEOUT_MS and what it waited for (wait_record.hpp); empty
  // when none did. run() appends it to an error that a launch reports.
  std::string failure_report() const;

 private:
  const Plan& planned(const GemmProblem& p);
  void enqueue(const GemmProblem& p, const Plan& plan, cudaStream_t stream);
  // Device memory grown to the largest plan run; `captured`: a captured graph uses it.
  struct GrowingScratch {
    DeviceBuffer memory;
    std::size_t bytes = 0;
    bool captured = false;
  };
  void* reserve(GrowingScratch& buffer, std::size_t bytes, bool zeroed, const char* what, cudaStream_t stream,
                bool capturing);
  // The plan's counters and partials into ws, its scratch (partials, then copies) into scratch.
  void prepare_workspace(const Plan& plan, SplitKWorkspace& ws, std::uint8_t*& scratch, cudaStream_t stream);
  const OperandMaps& operand_maps(const GemmProblem& launched, const KernelConfig& config);
  // Refuses operands this GPU cannot reach (host memory): a kernel reading them would fault.
  void check_reachable(const GemmProblem& p);

  GemmOptions options_;
  std::uint64_t wait_timeout_ns_;  // SYMM_WAIT_TIMEOUT_MS, read once
  DeviceLimits limits_;
  int device_ = 0;
  // Allocated here, not at a first launch that may be inside a stream capture.
  MappedHostBuffer wait_record_{sizeof(GemmWaitRecord), "gemm wait record"};
  GrowingScratch counters_;              // split-K arrival counters, zero between launches
  GrowingScratch scratch_;               // split-K partials and operand copies
  std::vector<DeviceBuffer> retired_;    // replaced buffers that captured graphs still use
  // The last launch's tensor maps and what they describe: a problem run again (a layer's
  // GEMM every step) skips encoding them, host time that shows on small problems.
  OperandMaps maps_{};
  GemmProblem maps_problem_;
  KernelConfig maps_config_;
  std::optional<std::pair<GemmProblem, Plan>> last_plan_;  // run(p, stream)'s last problem and plan
  // The last A, B and C found reachable (asking costs host time); none before the first run.
  std::optional<std::array<const void*, 3>> reachable_;
};

// Reads the current device's SM count, shared-memory limit and compute capability.
DeviceLimits query_device_limits(int device);

}  // namespace symm::gemm
