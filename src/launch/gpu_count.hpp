#pragma once
// Counting GPUs before the fork without initialising CUDA in this process: NVML
// (dlopen of the driver's libnvidia-ml), then CUDA_VISIBLE_DEVICES as CUDA reads it.
#include <optional>
#include <string>
#include <string_view>

namespace symm::detail {

struct GpuCount {
  int visible = 0;  // what CUDA would enumerate in this process
  int driver = 0;   // what NVML reports on the machine
  std::string why_none;  // when visible == 0: the reason, for messages
};

GpuCount count_gpus();

// Devices CUDA enumerates given CUDA_VISIBLE_DEVICES (nullopt: unset) and the driver's
// count: entries up to the first invalid one (an index out of range, a negative
// index, a repeated index, or an empty entry), as CUDA does; UUIDs (GPU-..., MIG-...)
// are taken as valid; never more than the driver has.
int visible_device_count(std::optional<std::string_view> cuda_visible_devices, int driver_count);

}  // namespace symm::detail
