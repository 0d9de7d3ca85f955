#pragma once
// Checked NCCL calls: a failure throws symm::Error naming the rank, the call, NCCL's error
// and its last message.
#include <nccl.h>

#include <string_view>

namespace symm::baselines {

void check_nccl(ncclResult_t status, std::string_view call, ncclComm_t comm = nullptr);

// For destructors, which must not throw: logs the failure and returns false.
bool warn_on_nccl_error(ncclResult_t status, std::string_view call) noexcept;

}  // namespace symm::baselines
