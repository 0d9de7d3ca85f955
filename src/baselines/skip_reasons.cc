#include "skip_reasons.hpp"

#include <fmt/format.h>

namespace symm::baselines {

std::string nccl_version_string(int code) {
  // NCCL_VERSION(X, Y, Z): X*1000 + Y*100 + Z up to 2.8, X*10000 + Y*100 + Z after.
  if (code >= 10000) return fmt::format("{}.{}.{}", code / 10000, code / 100 % 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, code / 100 % 10, code % 100);
}

std::string nccl_skip_reason(const NcclSituation& s) {
  if (!s.found_at_configure)
    return "NCCL not found at configure time (NCCL 2.28.3 or later: install libnccl-dev or the "
           "nvidia-nccl wheel, or set NCCL_ROOT, then re-run cmake)";
  if (!s.shared_gpu.empty())
    return s.shared_gpu + ", and NCCL needs a GPU per rank (run at most one rank per GPU)";
  return {};
}

std::string nccl_copy_engine_skip_reason(const NcclSituation& s) {
  if (std::string why = nccl_skip_reason(s); !why.empty()) return why;
  if (s.library_version < kNcclCopyEngineVersion)
    return fmt::format(
        "the NCCL library loaded at run time is {}, which has no copy-engine "
        "collectives (they need {} or later, as the headers compiled against): "
        "check LD_LIBRARY_PATH",
        nccl_version_string(s.library_version), nccl_version_string(kNcclCopyEngineVersion));
  return {};
}

}  // namespace symm::baselines
