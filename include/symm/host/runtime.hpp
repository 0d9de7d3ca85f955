#pragma once
// The per-rank runtime: this rank's GPU, the symmetric heap, and the device Context
// kernels receive.
//
//   int rank_main(symm::Team& team) {
//     symm::Runtime rt(team);                      // collective; SYMM_HEAP_SIZE etc.
//     cudaStream_t stream = ...;
//     auto x = symm::zeros<float>(rt.heap(), {n}, stream);
//     my_kernel<<<grid, block, 0, stream>>>(rt.context(), x);
//     rt.barrier(stream);
//   }
//   int main(int argc, char** argv) { return symm::launch({}, rank_main); }
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "symm/device/context.cuh"
#include "symm/host/heap.hpp"
#include "symm/host/team.hpp"

namespace symm {

struct RuntimeOptions {
  std::size_t heap_size = std::size_t{1} << 30;  // per rank
  HeapTransport transport = HeapTransport::automatic;

  // The defaults above, overridden by SYMM_HEAP_SIZE ("8GiB") and SYMM_HEAP_TRANSPORT
  // (auto|vmm|ipc) where set. A program's command-line options override these in turn.
  static RuntimeOptions from_env();
};

// The budget of every device-side wait, in ns: SYMM_WAIT_TIMEOUT_MS, or
// device::kDefaultWaitTimeoutMs when unset. A malformed value is a symm::Error.
std::uint64_t device_wait_timeout_ns();

// Collective; call before the Runtime exists. The device memory each rank can count on:
// the free memory of the GPU the Runtime will give it, divided among the ranks given that
// GPU; the least over the ranks, so every rank gets the same figure. A program sizes its
// heap and buffers with it rather than finding out from a failed allocation.
std::uint64_t free_memory_per_rank(Team& team);

class Runtime {
 public:
  // Collective. Selects GPU SYMM_LOCAL_RANK % device count (the rank when unset),
  // checks that every pair of GPUs in use can reach each other, and maps the heap.
  explicit Runtime(Team& team, const RuntimeOptions& options = RuntimeOptions::from_env());
  ~Runtime();  // collective (the heap's teardown)
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  int rank() const { return team_.rank(); }
  int world() const { return team_.world(); }
  int device() const { return device_; }
  int sm_count() const { return sm_count_; }
  const std::string& device_name() const { return device_name_; }
  // Every rank's GPU by rank, as PCI bus ids ("0000:1b:00.0"): ranks with the same id
  // share a GPU (and take turns on it).
  const std::vector<std::string>& rank_gpus() const { return rank_gpus_; }
  Team& team() { return team_; }
  Heap& heap() { return *heap_; }
  const Heap& heap() const { return *heap_; }

  // What kernels receive: rank, world, the device base table, heap size, wait budget.
  device::Context context() const;

  // Waits for `stream`, then for every rank to get here.
  void barrier(cudaStream_t stream);

 private:
  Team& team_;
  int device_ = 0;
  int sm_count_ = 0;
  std::string device_name_;
  std::vector<std::string> rank_gpus_;
  std::uint64_t wait_timeout_ns_ = 0;  // device_wait_timeout_ns()
  std::unique_ptr<Heap> heap_;
};

}  // namespace symm
