#pragma once
// Owners of CUDA objects kept between runs (device buffers, streams, events): created
// checked (throwing symm::Error), released by the destructor without throwing (a failure
// is logged).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

namespace symm {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t bytes, const std::string& what);  // cudaMalloc; `what` names it
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

// Zeroed host memory the device can write through a mapped address: where a kernel
// leaves what the host must read after it failed (records of timed-out device waits).
// Portable, so the device address serves every GPU.
class MappedHostBuffer {
 public:
  MappedHostBuffer(std::size_t bytes, const std::string& what);  // `what` names it in messages
  ~MappedHostBuffer();
  MappedHostBuffer(const MappedHostBuffer&) = delete;
  MappedHostBuffer& operator=(const MappedHostBuffer&) = delete;
  void* host() const { return host_; }
  void* device() const { return device_; }

 private:
  void* host_ = nullptr;
  void* device_ = nullptr;
};

// A CUDA object created checked and destroyed without throwing. Traits give its handle
// type, how to create and destroy it, and the calls' names for messages.
template <class Traits>
class OwnedCudaObject {
 public:
  using Handle = typename Traits::Handle;
  OwnedCudaObject();
  ~OwnedCudaObject();
  OwnedCudaObject(OwnedCudaObject&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  OwnedCudaObject& operator=(OwnedCudaObject&&) = delete;
  Handle get() const { return handle_; }

 private:
  Handle handle_ = nullptr;
};

// A stream that never synchronises implicitly with the legacy default stream.
struct StreamTraits {
  using Handle = cudaStream_t;
  static cudaError_t create(Handle* h) { return cudaStreamCreateWithFlags(h, cudaStreamNonBlocking); }
  static cudaError_t destroy(Handle h) { return cudaStreamDestroy(h); }
  static constexpr const char* kCreateCall = "cudaStreamCreateWithFlags(non-blocking stream)";
  static constexpr const char* kDestroyCall = "cudaStreamDestroy";
};
// An event for ordering streams (no timing).
struct EventTraits {
  using Handle = cudaEvent_t;
  static cudaError_t create(Handle* h) { return cudaEventCreateWithFlags(h, cudaEventDisableTiming); }
  static cudaError_t destroy(Handle h) { return cudaEventDestroy(h); }
  static constexpr const char* kCreateCall = "cudaEventCreateWithFlags(ordering event)";
  static constexpr const char* kDestroyCall = "cudaEventDestroy";
};
using OwnedStream = OwnedCudaObject<StreamTraits>;
using OwnedEvent = OwnedCudaObject<EventTraits>;
extern template class OwnedCudaObject<StreamTraits>;  // defined in src/runtime/cuda_resources.cc
extern template class OwnedCudaObject<EventTraits>;

// `waiter` waits for the work enqueued on `signaller` so far, through `event`.
void order_after(cudaStream_t waiter, cudaStream_t signaller, cudaEvent_t event);

}  // namespace symm
