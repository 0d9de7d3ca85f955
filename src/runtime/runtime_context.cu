// Runtime::context() lives in a .cu file because symm/device/context.cuh is device code.
#include "symm/device/context.cuh"
#include "symm/host/runtime.hpp"

namespace symm {

device::Context Runtime::context() const {
  device::Context context;
  context.rank = rank();
  context.world = world();
  context.bases = heap_->device_bases();
  context.heap_size = heap_->size();
  if (wait_timeout_ms_) context.wait_timeout_ns = *wait_timeout_ms_ * 1'000'000;
  return context;
}

}  // namespace symm
