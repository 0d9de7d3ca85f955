#pragma once
// Owners of the CUDA objects the baselines keep between runs: created checked (throwing
// symm::Error), released by the destructor without throwing (a failure is logged).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

namespace symm::baselines {

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

// A stream that never synchronises implicitly with the legacy default stream.
class OwnedStream {
 public:
  OwnedStream();
  ~OwnedStream();
  OwnedStream(OwnedStream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  OwnedStream& operator=(OwnedStream&&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// An event for ordering streams (no timing).
class OwnedEvent {
 public:
  OwnedEvent();
  ~OwnedEvent();
  OwnedEvent(OwnedEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  OwnedEvent& operator=(OwnedEvent&&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// `waiter` waits for the work enqueued on `signaller` so far, through `event`.
void order_after(cudaStream_t waiter, cudaStream_t signaller, cudaEvent_t event);

}  // namespace symm::baselines
