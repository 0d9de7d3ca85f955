#include "gpu_count.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "env.hpp"
#include "symm/host/launch.hpp"

namespace symm::detail {
namespace {

// NVML's C interface, declared here so that building needs no NVML header.
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0;
using NvmlInit = NvmlReturn (*)();
using NvmlGetCount = NvmlReturn (*)(unsigned int*);
using NvmlGetDriverVersion = NvmlReturn (*)(char*, unsigned int);
using NvmlShutdown = NvmlReturn (*)();
using NvmlErrorString = const char* (*)(NvmlReturn);

// The driver's NVML, loaded and initialised for the lifetime of the object; when that
// fails, ok() is false and why() says what happened.
class NvmlSession {
 public:
  NvmlSession() {
    library_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) {
      why_ = "no NVIDIA driver: libnvidia-ml.so.1 cannot be loaded";
      return;
    }
    auto init = symbol<NvmlInit>("nvmlInit_v2");
    shutdown_ = symbol<NvmlShutdown>("nvmlShutdown");
    error_string_ = symbol<NvmlErrorString>("nvmlErrorString");
    if (init == nullptr || shutdown_ == nullptr) {
      why_ = "the NVIDIA driver's NVML library lacks nvmlInit_v2/nvmlShutdown";
    } else if (NvmlReturn status = init(); status != kNvmlSuccess) {
      why_ = fmt::format("NVML could not start: {}", describe(status));
    } else {
      initialised_ = true;
    }
  }
  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;
  ~NvmlSession() {
    if (initialised_) shutdown_();
    if (library_ != nullptr) ::dlclose(library_);
  }

  bool ok() const { return initialised_; }
  const std::string& why() const { return why_; }

  template <class Fn>
  Fn symbol(const char* name) const {
    return reinterpret_cast<Fn>(::dlsym(library_, name));
  }
  std::string describe(NvmlReturn status) const {
    return error_string_ != nullptr ? std::string(error_string_(status))
                                    : fmt::format("error {}", status);
  }

 private:
  void* library_ = nullptr;
  bool initialised_ = false;
  NvmlShutdown shutdown_ = nullptr;
  NvmlErrorString error_string_ = nullptr;
  std::string why_;
};

// Returns the driver's GPU count, or 0 with the reason in why.
int nvml_device_count(std::string& why) {
  NvmlSession nvml;
  if (!nvml.ok()) {
    why = nvml.why();
    return 0;
  }
  auto get_count = nvml.symbol<NvmlGetCount>("nvmlDeviceGetCount_v2");
  unsigned int count = 0;
  if (get_count == nullptr) {
    why = "the NVIDIA driver's NVML library lacks nvmlDeviceGetCount_v2";
  } else if (NvmlReturn status = get_count(&count); status != kNvmlSuccess) {
    why = fmt::format("NVML could not count GPUs: {}", nvml.describe(status));
    count = 0;
  } else if (count == 0) {
    why = "NVML found none";
  }
  return static_cast<int>(count);
}

}  // namespace

int visible_device_count(std::optional<std::string_view> cuda_visible_devices, int driver_count) {
  if (!cuda_visible_devices) return driver_count;
  int count = 0;
  std::set<long long> seen;
  std::string_view rest = *cuda_visible_devices;
  while (true) {
    std::string_view entry = rest.substr(0, rest.find(','));
    while (!entry.empty() && entry.front() == ' ') entry.remove_prefix(1);
    while (!entry.empty() && entry.back() == ' ') entry.remove_suffix(1);
    if (entry.starts_with("GPU-") || entry.starts_with("MIG-")) {
      ++count;
    } else {
      auto index = parse_integer(entry);
      if (!index || *index < 0 || *index >= driver_count || !seen.insert(*index).second) break;
      ++count;
    }
    if (rest.find(',') == std::string_view::npos) break;
    rest.remove_prefix(rest.find(',') + 1);
  }
  return std::min(count, driver_count);
}

GpuCount count_gpus() {
  GpuCount result;
  result.driver = nvml_device_count(result.why_none);
  const char* mask = std::getenv("CUDA_VISIBLE_DEVICES");
  result.visible = visible_device_count(
      mask != nullptr ? std::optional<std::string_view>(mask) : std::nullopt, result.driver);
  if (result.visible == 0 && result.driver > 0) {
    result.why_none = fmt::format("NVML found {} but CUDA_VISIBLE_DEVICES=\"{}\" hides them",
                                  result.driver, mask != nullptr ? mask : "");
  }
  return result;
}

}  // namespace symm::detail

namespace symm {

int count_visible_gpus() { return detail::count_gpus().visible; }

std::string nvidia_driver_version() {
  detail::NvmlSession nvml;
  auto get_version = nvml.ok() ? nvml.symbol<detail::NvmlGetDriverVersion>("nvmlSystemGetDriverVersion")
                               : nullptr;
  char version[96] = {};
  if (get_version == nullptr || get_version(version, sizeof(version)) != detail::kNvmlSuccess) {
    return "unknown";
  }
  return version;
}

}  // namespace symm
