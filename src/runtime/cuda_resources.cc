#include "symm/host/cuda_resources.hpp"

#include "symm/host/cuda_check.hpp"

#include <cstring>

namespace symm {

MappedHostBuffer::MappedHostBuffer(std::size_t bytes, const std::string& what) {
  check_cuda(cudaHostAlloc(&host_, bytes, cudaHostAllocMapped | cudaHostAllocPortable), "cudaHostAlloc(" + what + ")");
  std::memset(host_, 0, bytes);
  if (const cudaError_t e = cudaHostGetDevicePointer(&device_, host_, 0); e != cudaSuccess) {
    cudaFreeHost(host_);  // the destructor will not run
    check_cuda(e, "cudaHostGetDevicePointer(" + what + ")");
  }
}

MappedHostBuffer::~MappedHostBuffer() { warn_on_cuda_error(cudaFreeHost(host_), "cudaFreeHost(mapped record)"); }

DeviceBuffer::DeviceBuffer(std::size_t bytes, const std::string& what) {
  check_cuda(cudaMalloc(&ptr_, bytes), "cudaMalloc(" + what + ")");
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) warn_on_cuda_error(cudaFree(ptr_), "cudaFree(device buffer)");
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != nullptr) warn_on_cuda_error(cudaFree(ptr_), "cudaFree(device buffer)");
    ptr_ = std::exchange(other.ptr_, nullptr);
  }
  return *this;
}

template <class Traits>
OwnedCudaObject<Traits>::OwnedCudaObject() {
  check_cuda(Traits::create(&handle_), Traits::kCreateCall);
}

template <class Traits>
OwnedCudaObject<Traits>::~OwnedCudaObject() {
  if (handle_ != nullptr) warn_on_cuda_error(Traits::destroy(handle_), Traits::kDestroyCall);
}

template class OwnedCudaObject<StreamTraits>;
template class OwnedCudaObject<EventTraits>;

void order_after(cudaStream_t waiter, cudaStream_t signaller, cudaEvent_t event) {
  SYMM_CUDA_CHECK(cudaEventRecord(event, signaller));
  SYMM_CUDA_CHECK(cudaStreamWaitEvent(waiter, event, 0));
}

}  // namespace symm
