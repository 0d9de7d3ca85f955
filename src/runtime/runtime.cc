// The per-rank runtime: GPU selection, peer reachability, the heap.
#include "symm/host/runtime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>

#include "heap_mapping.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/gather.hpp"
#include "symm/host/log.hpp"
#include "symm/host/options.hpp"
#include "symm/host/settings.hpp"

namespace symm {
namespace {

// Ranks are placed round-robin on the visible GPUs (ranks may outnumber GPUs).
int select_device(const Team& team) {
  int count = 0;
  check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count == 0) throw Error(fmt::format("{}no GPU is visible; symm needs one", rank_prefix()));
  const int device = settings::local_rank().value_or(team.rank()) % count;
  check_cuda(cudaSetDevice(device), fmt::format("cudaSetDevice({})", device));
  return device;
}

using BusId = std::array<char, 32>;  // "0000:1b:00.0", NUL-terminated

// Collective: the PCI bus id of every rank's GPU, by rank.
std::vector<std::string> gather_rank_gpus(Team& team, int device) {
  BusId mine{};
  check_cuda(cudaDeviceGetPCIBusId(mine.data(), mine.size(), device), "cudaDeviceGetPCIBusId");
  std::vector<std::string> gpus;
  for (BusId theirs : gather(team, mine)) {
    theirs.back() = '\0';
    gpus.emplace_back(theirs.data());
  }
  return gpus;
}

// Every rank's heap is mapped by every rank, so each GPU in use must reach every other
// one (ranks on the same GPU need nothing).
void check_peer_paths(Team& team, int device, const std::vector<std::string>& rank_gpus) {
  run_on_every_rank(team, "checking peer-to-peer paths between the GPUs", [&] {
    for (int r = 0; r < team.world(); ++r) {
      int peer_device = -1;
      check_cuda(cudaDeviceGetByPCIBusId(&peer_device, rank_gpus[r].c_str()),
                 fmt::format("cudaDeviceGetByPCIBusId({}, the GPU of rank {})", rank_gpus[r], r),
                 "every rank must see every GPU in use: do not narrow CUDA_VISIBLE_DEVICES per rank");
      if (peer_device == device) continue;
      int can_access = 0;
      check_cuda(cudaDeviceCanAccessPeer(&can_access, device, peer_device),
                 "cudaDeviceCanAccessPeer");
      if (!can_access) {
        throw Error(fmt::format("GPU {} cannot access GPU {} (rank {}): the symmetric heap needs a "
                                "peer-to-peer path (NVLink or PCIe P2P) between all GPUs in use",
                                device, peer_device, r));
      }
    }
  });
}

}  // namespace

std::uint64_t free_memory_per_rank(Team& team) {
  const int device = select_device(team);
  std::size_t free = 0, total = 0;
  check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  const std::vector<std::string> gpus = gather_rank_gpus(team, device);
  const auto sharing = std::count(gpus.begin(), gpus.end(), gpus[team.rank()]);
  const std::vector<std::uint64_t> shares = gather(team, std::uint64_t{free / std::uint64_t(sharing)});
  return *std::min_element(shares.begin(), shares.end());
}

RuntimeOptions RuntimeOptions::from_env() {
  RuntimeOptions options;
  options.heap_size = settings::heap_size().value_or(options.heap_size);
  options.transport = settings::heap_transport();
  return options;
}

std::uint64_t device_wait_timeout_ns() {
  return settings::wait_timeout_ms().value_or(device::kDefaultWaitTimeoutMs) * 1'000'000;
}

Runtime::Runtime(Team& team, const RuntimeOptions& options)
    : team_(team),
      device_(select_device(team)),
      wait_timeout_ns_(device_wait_timeout_ns()) {
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, device_), "cudaGetDeviceProperties");
  device_name_ = properties.name;
  sm_count_ = properties.multiProcessorCount;
  // The first moment the heap can be judged against the GPU: said here, in the settings'
  // words, rather than as a failed cuMemCreate.
  if (options.heap_size > properties.totalGlobalMem)
    throw Error(fmt::format("--heap_size / SYMM_HEAP_SIZE = {} is not valid on GPU {} ({}): expected at "
                            "most its memory, {}; give a smaller size",
                            format_bytes(options.heap_size), device_, device_name_,
                            format_bytes(properties.totalGlobalMem)));
  rank_gpus_ = gather_rank_gpus(team, device_);
  check_peer_paths(team, device_, rank_gpus_);
  const auto sharing = std::count(rank_gpus_.begin(), rank_gpus_.end(), rank_gpus_[team.rank()]);
  heap_ = std::make_unique<Heap>(team, device_, options.heap_size, options.transport);
  log::info(fmt::format("GPU {} ({}, {} SMs{}); heap {} per rank via {}", device_, device_name_,
                        sm_count_,
                        sharing > 1 ? fmt::format(", shared by {} ranks", sharing) : "",
                        format_bytes(heap_->size()), transport_name(heap_->transport())));
}

Runtime::~Runtime() = default;

void Runtime::barrier(cudaStream_t stream) {
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (Runtime::barrier)");
  team_.barrier();
}

device::Context Runtime::context() const {
  device::Context context;
  context.rank = rank();
  context.world = world();
  context.bases = heap_->device_bases();
  context.heap_size = heap_->size();
  context.wait_timeout_ns = wait_timeout_ns_;
  return context;
}

}  // namespace symm
