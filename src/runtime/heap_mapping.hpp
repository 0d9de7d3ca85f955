#pragma once
// The two ways of sharing the symmetric heaps between processes (private to symm).
//
//   VMM: cuMemCreate with a POSIX-fd handle type, the fds passed over the team's Unix
//        sockets, every heap imported and mapped side by side in one reserved range.
//   IPC: cudaMalloc + cudaIpcGetMemHandle, handles all-gathered, cudaIpcOpenMemHandle.
//
// A mapping is built collectively: each setup step ends with every rank learning
// whether it succeeded everywhere, so all ranks fail (or fall back) together and no
// rank is left waiting in a collective its peers have abandoned.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "symm/common/error.hpp"
#include "symm/host/team.hpp"

namespace symm {

// Thrown on every rank when a collective setup step failed on some rank; names each
// failing rank and its reason.
class SetupStepFailed : public Error {
 public:
  using Error::Error;
};

// Runs `step` here, then shares success across ranks: when it threw symm::Error (or
// any std::exception) on any rank, throws SetupStepFailed on every rank.
void run_on_every_rank(Team& team, std::string_view what, const std::function<void()>& step);

class HeapMapping {
 public:
  virtual ~HeapMapping() = default;  // unmaps and frees; never throws
  // Where each rank's heap starts in this process.
  std::span<const std::uintptr_t> bases() const { return bases_; }
  std::size_t size() const { return size_; }  // per rank, rounded up

 protected:
  std::vector<std::uintptr_t> bases_;
  std::size_t size_ = 0;
};

// Both throw SetupStepFailed (on every rank) when the transport cannot be set up.
std::unique_ptr<HeapMapping> map_vmm_heap(Team& team, int device, std::size_t bytes);
std::unique_ptr<HeapMapping> map_ipc_heap(Team& team, int device, std::size_t bytes);

}  // namespace symm
