#include "nccl_check.hpp"

#include <fmt/format.h>

#include <string>

#include "symm/common/error.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/log.hpp"

namespace symm::baselines {
namespace {

std::string failure_message(ncclResult_t status, std::string_view call, ncclComm_t comm) {
  const char* last = ncclGetLastError(comm);
  return fmt::format("{}{} failed: {}{}; NCCL_DEBUG=WARN (or INFO) prints NCCL's own account",
                     rank_prefix(), call, ncclGetErrorString(status),
                     last != nullptr && *last != '\0' ? fmt::format(" ({})", last) : "");
}

}  // namespace

void check_nccl(ncclResult_t status, std::string_view call, ncclComm_t comm) {
  if (status != ncclSuccess) throw Error(failure_message(status, call, comm));
}

bool warn_on_nccl_error(ncclResult_t status, std::string_view call) noexcept {
  if (status == ncclSuccess) return true;
  try {
    log::warn(failure_message(status, call, nullptr));
  } catch (...) {
    // Formatting or logging failed (out of memory): nothing more can be reported.
  }
  return false;
}

}  // namespace symm::baselines
