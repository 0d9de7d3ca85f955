// The symmetric heap over CUDA VMM: physical memory exported as a POSIX file
// descriptor, every rank's heap imported and mapped side by side in one reserved range
// (so bases[r] = start + r * size), read/write access for this rank's device.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "heap_mapping.hpp"
#include "symm/host/cuda_check.hpp"

namespace symm {
namespace {

// The driver functions the VMM heap uses, loaded once (see cuda_check.hpp).
struct VmmDriver {
  decltype(&cuDeviceGet) device_get = SYMM_DRIVER_FUNCTION(cuDeviceGet);
  decltype(&cuDeviceGetAttribute) device_attribute = SYMM_DRIVER_FUNCTION(cuDeviceGetAttribute);
  decltype(&cuMemGetAllocationGranularity) granularity =
      SYMM_DRIVER_FUNCTION(cuMemGetAllocationGranularity);
  decltype(&cuMemCreate) create = SYMM_DRIVER_FUNCTION(cuMemCreate);
  decltype(&cuMemRelease) release = SYMM_DRIVER_FUNCTION(cuMemRelease);
  decltype(&cuMemExportToShareableHandle) export_handle =
      SYMM_DRIVER_FUNCTION(cuMemExportToShareableHandle);
  decltype(&cuMemImportFromShareableHandle) import_handle =
      SYMM_DRIVER_FUNCTION(cuMemImportFromShareableHandle);
  decltype(&cuMemAddressReserve) reserve = SYMM_DRIVER_FUNCTION(cuMemAddressReserve);
  decltype(&cuMemAddressFree) address_free = SYMM_DRIVER_FUNCTION(cuMemAddressFree);
  decltype(&cuMemMap) map = SYMM_DRIVER_FUNCTION(cuMemMap);
  decltype(&cuMemUnmap) unmap = SYMM_DRIVER_FUNCTION(cuMemUnmap);
  decltype(&cuMemSetAccess) set_access = SYMM_DRIVER_FUNCTION(cuMemSetAccess);

  static const VmmDriver& get() {
    static const VmmDriver driver;
    return driver;
  }
};

constexpr auto kFdHandle = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;

class VmmHeap final : public HeapMapping {
 public:
  VmmHeap(Team& team, int device, std::size_t bytes) : world_(team.world()) {
    handles_.assign(world_, 0);
    try {
      run_on_every_rank(team, "creating and exporting the VMM heap",
                        [&] { create_and_export(device, bytes, team.rank()); });
      std::vector<UniqueFd> fds = team.all_gather_fds(exported_fd_.get());
      // The peers received copies of it: this one would only keep the memory alive in any
      // process this rank starts, which inherits it.
      exported_fd_.reset();
      run_on_every_rank(team, "importing and mapping the peers' VMM heaps",
                        [&] { import_and_map(device, team.rank(), fds); });
    } catch (...) {
      release();
      throw;
    }
  }
  ~VmmHeap() override { release(); }

 private:
  void create_and_export(int device, std::size_t bytes, int rank) {
    const VmmDriver& driver = VmmDriver::get();
    CUdevice cu_device = 0;
    SYMM_DRIVER_CHECK(driver.device_get(&cu_device, device));
    int vmm = 0, fd_handles = 0;
    SYMM_DRIVER_CHECK(driver.device_attribute(
        &vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, cu_device));
    SYMM_DRIVER_CHECK(driver.device_attribute(
        &fd_handles, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, cu_device));
    if (!vmm || !fd_handles) {
      throw Error(fmt::format("GPU {} does not support {}", device,
                              !vmm ? "virtual memory management"
                                   : "exporting memory as POSIX file descriptors"));
    }
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = kFdHandle;
    SYMM_DRIVER_CHECK(driver.granularity(&granularity_, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_ = (bytes + granularity_ - 1) / granularity_ * granularity_;
    check_driver(driver.create(&handles_[rank], size_, &prop, 0),
                 fmt::format("cuMemCreate({} bytes on GPU {})", size_, device),
                 "free GPU memory or lower --heap_size / SYMM_HEAP_SIZE");
    int fd = -1;
    SYMM_DRIVER_CHECK(driver.export_handle(&fd, handles_[rank], kFdHandle, 0));
    exported_fd_.reset(fd);
  }

  void import_and_map(int device, int rank, const std::vector<UniqueFd>& fds) {
    const VmmDriver& driver = VmmDriver::get();
    for (int r = 0; r < world_; ++r) {
      if (r == rank) continue;
      // The fd travels as the handle argument itself (the driver's convention).
      void* os_handle = reinterpret_cast<void*>(static_cast<std::uintptr_t>(fds[r].get()));
      check_driver(driver.import_handle(&handles_[r], os_handle, kFdHandle),
                   fmt::format("cuMemImportFromShareableHandle(heap of rank {})", r));
    }
    const std::size_t total = size_ * world_;
    SYMM_DRIVER_CHECK(driver.reserve(&start_, total, granularity_, 0, 0));
    for (int r = 0; r < world_; ++r) {
      check_driver(driver.map(start_ + r * size_, size_, 0, handles_[r], 0),
                   fmt::format("cuMemMap(heap of rank {})", r));
      ++mapped_;
    }
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    check_driver(driver.set_access(start_, total, &access, 1),
                 fmt::format("cuMemSetAccess(every rank's heap, GPU {})", device),
                 "peer heaps on other GPUs need a peer-to-peer path (NVLink or PCIe P2P)");
    for (int r = 0; r < world_; ++r) bases_.push_back(static_cast<std::uintptr_t>(start_ + r * size_));
  }

  void release() noexcept {
    const bool holds_memory =
        start_ != 0 || std::any_of(handles_.begin(), handles_.end(), [](auto h) { return h != 0; });
    if (!holds_memory) return;
    const VmmDriver& driver = VmmDriver::get();  // already loaded: it made what we hold
    for (int r = 0; r < mapped_; ++r) {
      warn_on_driver_error(driver.unmap(start_ + r * size_, size_), "cuMemUnmap(symmetric heap)");
    }
    if (start_ != 0) {
      warn_on_driver_error(driver.address_free(start_, size_ * world_),
                           "cuMemAddressFree(symmetric heap)");
    }
    for (CUmemGenericAllocationHandle handle : handles_) {
      if (handle != 0) warn_on_driver_error(driver.release(handle), "cuMemRelease(symmetric heap)");
    }
    handles_.assign(handles_.size(), 0);
    start_ = 0;
    mapped_ = 0;
  }

  int world_;
  std::size_t granularity_ = 0;
  std::vector<CUmemGenericAllocationHandle> handles_;  // by rank; 0: none
  UniqueFd exported_fd_;
  CUdeviceptr start_ = 0;
  int mapped_ = 0;
};

}  // namespace

std::unique_ptr<HeapMapping> map_vmm_heap(Team& team, int device, std::size_t bytes) {
  return std::make_unique<VmmHeap>(team, device, bytes);
}

}  // namespace symm
