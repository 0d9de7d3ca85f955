#pragma once
// NCCL's pieces the NCCL baselines own: a communicator over every rank of the job, and a
// buffer registered as a symmetric window (what NCCL's copy-engine collectives need).
// Construction and destruction are collective: every rank creates and destroys them in
// the same order. Destroyed while an exception unwinds (this rank failed, its peers may
// be anywhere), they abort instead: a collective teardown would wait for peers that
// never come.
#include <nccl.h>

#include <cstddef>

namespace symm {
class Team;
}

namespace symm::baselines {

class NcclCommunicator {
 public:
  // Rank 0 makes the unique id; the Team's broadcast carries it to the others.
  NcclCommunicator(Team& team, ncclConfig_t config);
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;
  ncclComm_t get() const { return comm_; }
  // Aborts the communicator (uncompleted operations too) if an exception is unwinding
  // through its owner; then the destructor does nothing.
  void abort_if_unwinding() noexcept;

 private:
  ncclComm_t comm_ = nullptr;
  int exceptions_at_start_ = 0;  // std::uncaught_exceptions() when constructed
};

// ncclMemAlloc'd memory (cuMem, as windows require), registered over `comm` with
// NCCL_WIN_COLL_SYMMETRIC: every rank passes the same offsets into it to a collective.
class NcclWindowBuffer {
 public:
  NcclWindowBuffer(ncclComm_t comm, std::size_t bytes);
  ~NcclWindowBuffer();  // deregisters, then frees
  NcclWindowBuffer(const NcclWindowBuffer&) = delete;
  NcclWindowBuffer& operator=(const NcclWindowBuffer&) = delete;
  void* get() const { return ptr_; }

 private:
  void release() noexcept;

  ncclComm_t comm_;
  void* ptr_ = nullptr;
  ncclWindow_t window_ = nullptr;
  int exceptions_at_start_ = 0;  // std::uncaught_exceptions() when constructed
};

}  // namespace symm::baselines
