// The symmetric heap over legacy CUDA IPC: cudaMalloc'd heaps whose handles are
// all-gathered and opened by every peer. The driver picks where each peer's heap lands,
// which the base table records. (IPC handles cannot be opened by the process that made
// them, which never happens here: every rank is its own process.)
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "heap_mapping.hpp"
#include "symm/host/cuda_check.hpp"

namespace symm {
namespace {

// The same rounding as the VMM heap's granularity, so both transports give one size.
constexpr std::size_t kIpcHeapRounding = std::size_t{2} << 20;

class IpcHeap final : public HeapMapping {
 public:
  IpcHeap(Team& team, int device, std::size_t bytes) {
    const int rank = team.rank();
    size_ = (bytes + kIpcHeapRounding - 1) / kIpcHeapRounding * kIpcHeapRounding;
    bases_.assign(team.world(), 0);
    try {
      cudaIpcMemHandle_t mine{};
      run_on_every_rank(team, "allocating and exporting the IPC heap", [&] {
        check_cuda(cudaMalloc(&local_, size_),
                   fmt::format("cudaMalloc({} bytes of symmetric heap on GPU {})", size_, device));
        SYMM_CUDA_CHECK(cudaIpcGetMemHandle(&mine, local_));
      });
      const auto handles = team.all_gather(std::as_bytes(std::span(&mine, 1)));
      run_on_every_rank(team, "opening the peers' IPC heaps", [&] {
        for (int r = 0; r < team.world(); ++r) {
          if (r == rank) continue;
          cudaIpcMemHandle_t theirs;
          std::memcpy(&theirs, handles.data() + r * sizeof(theirs), sizeof(theirs));
          void* peer = nullptr;
          // Lazy peer access: enabled by the driver where rank r's GPU is another one.
          check_cuda(cudaIpcOpenMemHandle(&peer, theirs, cudaIpcMemLazyEnablePeerAccess),
                     fmt::format("cudaIpcOpenMemHandle(heap of rank {})", r));
          bases_[r] = reinterpret_cast<std::uintptr_t>(peer);
        }
      });
      bases_[rank] = reinterpret_cast<std::uintptr_t>(local_);
    } catch (...) {
      release();
      throw;
    }
  }
  ~IpcHeap() override { release(); }

 private:
  void release() noexcept {
    for (std::size_t r = 0; r < bases_.size(); ++r) {
      const auto base = reinterpret_cast<void*>(bases_[r]);
      if (base != nullptr && base != local_) {
        warn_on_cuda_error(cudaIpcCloseMemHandle(base), "cudaIpcCloseMemHandle(symmetric heap)");
      }
      bases_[r] = 0;
    }
    if (local_ != nullptr) warn_on_cuda_error(cudaFree(local_), "cudaFree(symmetric heap)");
    local_ = nullptr;
  }

  void* local_ = nullptr;
};

}  // namespace

std::unique_ptr<HeapMapping> map_ipc_heap(Team& team, int device, std::size_t bytes) {
  return std::make_unique<IpcHeap>(team, device, bytes);
}

}  // namespace symm
