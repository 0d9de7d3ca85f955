#pragma once
// Choosing a kernel for a problem: the rules (can_implement), the heuristic, and the
// resulting plan. Pure host functions of the problem and the device's limits, so the
// cpu test tier checks them without a GPU.
#include <optional>
#include <string>
#include <vector>

#include "symm/gemm/config.hpp"
#include "symm/gemm/operand_copies.hpp"
#include "symm/gemm/scheduler.hpp"
#include "symm/gemm/types.hpp"

namespace symm::gemm {

// Peak memory bandwidths (double data rate x bus width) of an H200 (3201 MHz, 6144 bits)
// and an H100 SXM (2619 MHz, 5120 bits), as query_device_limits reads them.
inline constexpr double kH200MemoryBytesPerS = 2 * 3201e6 * 6144 / 8;
inline constexpr double kH100MemoryBytesPerS = 2 * 2619e6 * 5120 / 8;

struct DeviceLimits {
  int sm_count = 132;
  int max_smem_per_block = kSm90MaxSmemPerBlock;
  int cc_major = 9, cc_minor = 0;
  // Blocks of a kernel that fills an SM resident at once in clusters of 4: a cluster's
  // blocks share a GPC, so GPCs whose SM counts are not multiples of 4 leave SMs out
  // (queried: query_device_limits; an H200 has room for 30 such clusters).
  int quad_cluster_blocks = 120;
  // Peak memory bandwidth, bytes per second (queried: twice the memory clock times the bus
  // width); the default is an H200's. Rows that straddle sectors load at a rate that
  // follows it (copy_choice.cc).
  double memory_bytes_per_s = kH200MemoryBytesPerS;
  // The cost model's rates were measured on an H200: what memory moves scales by this.
  constexpr double memory_share_of_h200() const { return memory_bytes_per_s / kH200MemoryBytesPerS; }
  // Blocks resident at once in clusters of `cluster_blocks` (1, 2 or 4; config.hpp); pairs
  // are taken to fit every SM.
  constexpr int cluster_resident_blocks(int cluster_blocks) const {
    return cluster_blocks == 4 ? quad_cluster_blocks : sm_count;
  }
};

// An H100 SXM's limits: an H200's SMs and shared memory, and its slower memory.
constexpr DeviceLimits h100_sxm_limits() {
  DeviceLimits d;
  d.memory_bytes_per_s = kH100MemoryBytesPerS;
  return d;
}

struct GemmOptions {
  // A WGMMA configuration to use (with force_fallback: a fallback one); none: the heuristic's.
  std::optional<KernelConfig> config;
  int num_blocks = 0;                  // persistent blocks (gemm_sms); 0: one per SM
  int gsize_m = 8;                     // tile rows per group of the grouped order
  int k_splits = 0;                    // 0: the heuristic's; 1: no split-K
  // Stream-K: 0 never (default; slower in docs/gemm.md, runs 3, 6, 7); -1 where the model or
  // the tuner prefers it; 1 always.
  int stream_k = 0;
  // The last wave split (scheduler.hpp): where full waves of tiles leave a part-empty one,
  // its tiles split along K (k_splits ways if given, else the model's). -1 where the model
  // or the tuner prefers it (default); 0 never; 1 wherever there is such a wave.
  int split_tail = -1;
  // Ping-pong kernels (config.hpp): -1 where the model prefers them (default); 0 never
  // (callers whose epilogue hooks expect both consumers on every tile); 1 only those.
  int pingpong = -1;
  // Cluster kernels (config.hpp): -1 where the model prefers them (default); 0 never
  // (fused kernels, which launch the GEMM blocks without clusters); 1 only those.
  int clusters = -1;
  // Let the WGMMA plan read (or write) operands through 128-byte-pitched scratch copies
  // (operand_copies.hpp); false: plan the problem as given (fused kernels, which launch the
  // GEMM blocks themselves and make no copies).
  bool operand_copies = true;
  bool force_fallback = false;         // use the mma.sync kernel even where WGMMA could run
  bool verbose = false;                // say which kernel runs and why (stderr)

  // Defaults overridden by SYMM_GEMM_CONFIG, SYMM_GEMM_SMS, SYMM_GEMM_GSIZE_M,
  // SYMM_GEMM_SPLITS, SYMM_GEMM_STREAM_K, SYMM_GEMM_SPLIT_TAIL, SYMM_GEMM_PINGPONG, SYMM_GEMM_CLUSTERS, SYMM_GEMM_OPERAND_COPIES,
  // SYMM_GEMM_FORCE_FALLBACK and SYMM_GEMM_VERBOSE.
  static GemmOptions from_env();
};

enum class KernelKind { wgmma, fallback };

struct Plan {
  KernelKind kind = KernelKind::wgmma;
  KernelConfig config;     // tile shape of the kernel that runs
  TileScheduler sched;     // tiles, K iterations, splits, group size
  int num_blocks = 0;      // grid size (wgmma: persistent blocks)
  bool aligned_loads = false;  // fallback: cp.async loads (else element by element)
  OperandCopies copies;        // wgmma: operands read or written through scratch
  std::string reason;      // why this kernel and configuration (verbose output)
  // The heuristic's predicted time of this plan (predicted_cost's units, with memory's floor
  // and the cost of straddling rows or their copies): comparable between the plans of one
  // problem on one device; 0 where nothing was scored (the fallback).
  double model_cost = 0;
};

// Empty when the problem is well formed, otherwise what is wrong with it.
std::string validate(const GemmProblem& p);
// Empty when the options are in range, otherwise what is wrong (naming the SYMM_GEMM_*
// variable that sets each).
std::string validate(const GemmOptions& o);
// Empty when TMA can describe A, B and C, otherwise why not.
std::string tma_incompatibility(const GemmProblem& p);
// Empty when the WGMMA kernel with `config` can run `p` on the device, otherwise why not
// (the reasons of tma_incompatibility, an unsupported device, a configuration that is not
// built, shared memory over the device's limit).
std::string can_implement(const KernelConfig& config, const GemmProblem& p, const DeviceLimits& d);

// The heuristic's estimate of a schedule's time, in arbitrary units: the busiest block's
// K iterations (waves of units, or its stream-K share) plus epilogues and partials,
// weighted by the tile shape's efficiency with B in layout b_layout.
double predicted_cost(const KernelConfig& config, const TileScheduler& sched, int num_blocks, BLayout b_layout);

// The best few plans by predicted cost, best first (for tuning by measurement), each
// decomposition of each configuration once, with its cheapest way to read straddling
// rows; empty when WGMMA cannot run the problem.
std::vector<Plan> candidate_plans(const GemmProblem& p, const GemmOptions& o, const DeviceLimits& d,
                                  int count);

// Picks the kernel, configuration, splits and grid; throws symm::Error for an invalid
// problem, options out of range, or an impossible forced choice (naming the SYMM_GEMM_*
// variable). Knobs asking for more than there is (splits beyond the K iterations, blocks
// beyond the SMs) are clamped, and the plan's reason says so.
Plan make_plan(const GemmProblem& p, const GemmOptions& o, const DeviceLimits& d);

// Scratch a plan needs: split-K / stream-K arrival counters, which must be zero at launch
// (and are again after it: each finishing unit resets its own), then the scratch proper:
// fp32 partials and the operand copies (operand_copies.hpp). Each region is rounded up to
// 256 bytes. Gemm keeps the counters in a buffer of their own, so no other plan's
// partials or copies land on them; a caller holding one buffer puts them first.
struct WorkspaceLayout {
  std::size_t counter_bytes = 0;
  std::size_t partial_bytes = 0;  // the scratch, in this order
  std::size_t copy_a_bytes = 0, copy_b_bytes = 0, copy_c_bytes = 0;
  std::size_t copy_a_offset() const { return partial_bytes; }  // offsets within the scratch
  std::size_t copy_b_offset() const { return copy_a_offset() + copy_a_bytes; }
  std::size_t copy_c_offset() const { return copy_b_offset() + copy_b_bytes; }
  std::size_t scratch_bytes() const { return copy_c_offset() + copy_c_bytes; }
  std::size_t total() const { return counter_bytes + scratch_bytes(); }
};
WorkspaceLayout workspace_layout(const Plan& plan);
inline std::size_t workspace_bytes(const Plan& plan) { return workspace_layout(plan).total(); }

std::string describe(const GemmProblem& p, const Plan& plan);
// How a schedule cuts the work: "k_splits=1" (data-parallel), "k_splits=3", "k_splits=3 of
// the last 84 tiles (1452 whole)" (the last wave split), "stream-K".
std::string decomposition(const TileScheduler& s);
// Empty when `plan` was made for a problem of p's extent, otherwise the difference: a plan
// for a smaller problem would leave tiles unwritten, or run past its split-K workspace.
std::string plan_mismatch(const GemmProblem& p, const Plan& plan);  // one line for verbose output

}  // namespace symm::gemm
