#include "nccl_communicator.hpp"

#include <fmt/format.h>

#include <span>

#include "nccl_check.hpp"
#include "symm/host/team.hpp"

namespace symm::baselines {

NcclCommunicator::NcclCommunicator(Team& team, ncclConfig_t config) {
  ncclUniqueId id{};
  if (team.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  team.broadcast(std::as_writable_bytes(std::span(&id, 1)), 0);
  check_nccl(ncclCommInitRankConfig(&comm_, team.world(), id, team.rank(), &config),
             fmt::format("ncclCommInitRankConfig(rank {} of {})", team.rank(), team.world()));
}

NcclCommunicator::~NcclCommunicator() {
  // Finalize flushes the communicator's work everywhere before Destroy frees it.
  warn_on_nccl_error(ncclCommFinalize(comm_), "ncclCommFinalize");
  warn_on_nccl_error(ncclCommDestroy(comm_), "ncclCommDestroy");
}

NcclWindowBuffer::NcclWindowBuffer(ncclComm_t comm, std::size_t bytes) : comm_(comm) {
  check_nccl(ncclMemAlloc(&ptr_, bytes), fmt::format("ncclMemAlloc({} bytes)", bytes), comm);
  try {
    check_nccl(ncclCommWindowRegister(comm, ptr_, bytes, &window_, NCCL_WIN_COLL_SYMMETRIC),
               "ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC)", comm);
  } catch (...) {
    release();
    throw;
  }
}

NcclWindowBuffer::~NcclWindowBuffer() { release(); }

void NcclWindowBuffer::release() noexcept {
  if (window_ != nullptr)
    warn_on_nccl_error(ncclCommWindowDeregister(comm_, window_), "ncclCommWindowDeregister");
  if (ptr_ != nullptr) warn_on_nccl_error(ncclMemFree(ptr_), "ncclMemFree");
  window_ = nullptr, ptr_ = nullptr;
}

}  // namespace symm::baselines
