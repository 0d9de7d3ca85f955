#include "nccl_communicator.hpp"

#include <fmt/format.h>

#include <exception>
#include <span>

#include "nccl_check.hpp"
#include "symm/common/error.hpp"
#include "symm/host/team.hpp"

namespace symm::baselines {

NcclCommunicator::NcclCommunicator(Team& team, ncclConfig_t config)
    : exceptions_at_start_(std::uncaught_exceptions()) {
  ncclUniqueId id{};
  if (team.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  team.broadcast(std::as_writable_bytes(std::span(&id, 1)), 0);
  const ncclResult_t r = ncclCommInitRankConfig(&comm_, team.world(), id, team.rank(), &config);
  if (r != ncclSuccess && comm_ != nullptr) {
    warn_on_nccl_error(ncclCommAbort(comm_), "ncclCommAbort (after a failed init)");
    comm_ = nullptr;
  }
  check_nccl(r, fmt::format("ncclCommInitRankConfig(rank {} of {})", team.rank(), team.world()));
}

void NcclCommunicator::abort_if_unwinding() noexcept {
  if (comm_ == nullptr || !unwinding_since(exceptions_at_start_)) return;
  warn_on_nccl_error(ncclCommAbort(comm_), "ncclCommAbort");
  comm_ = nullptr;
}

NcclCommunicator::~NcclCommunicator() {
  abort_if_unwinding();
  if (comm_ == nullptr) return;
  // Finalize flushes the communicator's work everywhere before Destroy frees it.
  warn_on_nccl_error(ncclCommFinalize(comm_), "ncclCommFinalize");
  warn_on_nccl_error(ncclCommDestroy(comm_), "ncclCommDestroy");
}

NcclWindowBuffer::NcclWindowBuffer(ncclComm_t comm, std::size_t bytes)
    : comm_(comm), exceptions_at_start_(std::uncaught_exceptions()) {
  check_nccl(ncclMemAlloc(&ptr_, bytes), fmt::format("ncclMemAlloc({} bytes)", bytes), comm);
  try {
    check_nccl(ncclCommWindowRegister(comm, ptr_, bytes, &window_, NCCL_WIN_COLL_SYMMETRIC),
               "ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC)", comm);
  } catch (...) {
    release();
    throw;
  }
}

NcclWindowBuffer::~NcclWindowBuffer() {
  // Deregistering is collective; while unwinding, the communicator's abort (next) frees
  // what NCCL holds, and the buffer is left to the process's exit.
  if (unwinding_since(exceptions_at_start_)) return;
  release();
}

void NcclWindowBuffer::release() noexcept {
  if (window_ != nullptr)
    warn_on_nccl_error(ncclCommWindowDeregister(comm_, window_), "ncclCommWindowDeregister");
  if (ptr_ != nullptr) warn_on_nccl_error(ncclMemFree(ptr_), "ncclMemFree");
  window_ = nullptr, ptr_ = nullptr;
}

}  // namespace symm::baselines
