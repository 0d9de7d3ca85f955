#pragma once
// Why the NCCL baselines cannot run here (pure; the cpu tier tests the rules and wording).
#include <string>
#include <string_view>

namespace symm::baselines {

// NCCL's copy-engine all-gather (symmetric windows, NCCL_CTA_POLICY_ZERO) came with 2.28.3.
inline constexpr int kNcclCopyEngineVersion = 22803;

inline constexpr std::string_view kCublasLtNcclName = "cublaslt+nccl";
inline constexpr std::string_view kNcclCopyEngineName = "nccl_ce_all_gather";

struct NcclSituation {
  bool found_at_configure = false;  // SYMM_HAVE_NCCL (2.28.3 or later: cmake/FindNCCL.cmake)
  int library_version = 0;          // ncclGetVersion() at run time (LD_LIBRARY_PATH may differ)
  std::string shared_gpu;           // describe_shared_gpu(): "" when each rank has its own
};

// "" when cublaslt+nccl can run, else why not and what to do.
std::string nccl_skip_reason(const NcclSituation& s);
// "" when nccl_ce_all_gather can run, else why not and what to do.
std::string nccl_copy_engine_skip_reason(const NcclSituation& s);

std::string nccl_version_string(int code);  // 22803 -> "2.28.3", 2708 -> "2.7.8"

}  // namespace symm::baselines
