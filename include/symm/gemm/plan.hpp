#pragma once
// Choosing a kernel for a problem: the rules (can_implement), the heuristic, and the
// resulting plan. Pure host functions of the problem and the device's limits, so the
// cpu test tier checks them without a GPU.
#include <optional>
#include <string>

#include "symm/gemm/config.hpp"
#include "symm/gemm/scheduler.hpp"
#include "symm/gemm/types.hpp"

namespace symm::gemm {

struct DeviceLimits {
  int sm_count = 132;
  int max_smem_per_block = kSm90MaxSmemPerBlock;
  int cc_major = 9, cc_minor = 0;
};

struct GemmOptions {
  std::optional<KernelConfig> config;  // a WGMMA configuration to use; none: the heuristic's
  int num_blocks = 0;                  // persistent blocks (gemm_sms); 0: one per SM
  int gsize_m = 8;                     // tile rows per group of the grouped order
  int k_splits = 0;                    // 0: the heuristic's; 1: no split-K
  bool force_fallback = false;         // use the mma.sync kernel even where WGMMA could run
  bool verbose = false;                // say which kernel runs and why (stderr)

  // Defaults overridden by SYMM_GEMM_CONFIG, SYMM_GEMM_SMS, SYMM_GEMM_GSIZE_M,
  // SYMM_GEMM_SPLITS, SYMM_GEMM_FORCE_FALLBACK and SYMM_GEMM_VERBOSE.
  static GemmOptions from_env();
};

enum class KernelKind { wgmma, fallback };

struct Plan {
  KernelKind kind = KernelKind::wgmma;
  KernelConfig config;     // tile shape of the kernel that runs
  TileScheduler sched;     // tiles, K iterations, splits, group size
  int num_blocks = 0;      // grid size (wgmma: persistent blocks)
  bool aligned_loads = false;  // fallback: cp.async loads (else element by element)
  std::string reason;      // why this kernel and configuration (verbose output)
};

// Empty when the problem is well formed, otherwise what is wrong with it.
std::string validate(const GemmProblem& p);
// Empty when TMA can describe A, B and C, otherwise why not.
std::string tma_incompatibility(const GemmProblem& p);
// Empty when the WGMMA kernel with `config` can run `p` on the device, otherwise why not
// (the reasons of tma_incompatibility, an unsupported device, a configuration that is not
// built, shared memory over the device's limit).
std::string can_implement(const KernelConfig& config, const GemmProblem& p, const DeviceLimits& d);

// The heuristic's estimate of a WGMMA configuration's time, in arbitrary units: waves of
// work units times each unit's K iterations, weighted by the tile shape's efficiency.
double predicted_cost(const KernelConfig& config, std::int64_t m, std::int64_t n, std::int64_t k,
                      int k_splits, int num_blocks);

// Picks the kernel, configuration, splits and grid; throws symm::Error for an invalid
// problem or an impossible forced choice.
Plan make_plan(const GemmProblem& p, const GemmOptions& o, const DeviceLimits& d);

// Scratch bytes the plan needs (split-K partials and counters); 0 without split-K.
std::size_t workspace_bytes(const Plan& plan);

std::string describe(const GemmProblem& p, const Plan& plan);  // one line for verbose output

}  // namespace symm::gemm
