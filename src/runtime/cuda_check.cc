// Checked CUDA calls: messages that name the rank, the call, the error and a remedy.
#include "symm/host/cuda_check.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "symm/common/error.hpp"
#include "symm/host/log.hpp"

namespace symm {
namespace {

// A remedy for the errors a user can do something about, when the caller gave none.
std::string_view default_hint(cudaError_t status) {
  switch (status) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return "check that a GPU and its driver are visible (nvidia-smi, CUDA_VISIBLE_DEVICES)";
    case cudaErrorMemoryAllocation:
      return "free GPU memory, or lower --heap_size / SYMM_HEAP_SIZE";
    case cudaErrorPeerAccessUnsupported:
      return "the GPUs have no peer-to-peer path (NVLink or PCIe P2P) between them";
    default:
      return {};
  }
}

std::string driver_error_text(CUresult status) {
  const char* name = nullptr;
  const char* text = nullptr;
  try {
    static auto* get_name = SYMM_DRIVER_FUNCTION(cuGetErrorName);
    static auto* get_string = SYMM_DRIVER_FUNCTION(cuGetErrorString);
    get_name(status, &name);
    get_string(status, &text);
  } catch (const Error&) {
    // No driver to ask: the number alone still identifies the error.
  }
  return fmt::format("{} ({})", name ? name : fmt::format("CUresult {}", static_cast<int>(status)),
                     text ? text : "no description");
}

std::string failure_message(std::string_view call, const std::string& error,
                            std::string_view hint) {
  return fmt::format("{}{} failed: {}{}{}", rank_prefix(), call, error, hint.empty() ? "" : "; ",
                     hint);
}

std::string runtime_error_text(cudaError_t status) {
  return fmt::format("{} ({})", cudaGetErrorName(status), cudaGetErrorString(status));
}

template <class ErrorText>
bool warn_failure(std::string_view call, const ErrorText& error_text) noexcept {
  try {
    log::warn(failure_message(call, error_text(), {}));
  } catch (...) {
    // Formatting or logging failed (out of memory): nothing more can be reported.
  }
  return false;
}

}  // namespace

std::string_view rank_prefix() {
  static const std::string prefix = [] {
    const char* rank = std::getenv("SYMM_RANK");
    return rank ? fmt::format("rank {}: ", rank) : std::string();
  }();
  return prefix;
}

void check_cuda(cudaError_t status, std::string_view call, std::string_view hint) {
  if (status == cudaSuccess) return;
  throw Error(failure_message(call, runtime_error_text(status),
                              hint.empty() ? default_hint(status) : hint));
}

void check_driver(CUresult status, std::string_view call, std::string_view hint) {
  if (status == CUDA_SUCCESS) return;
  throw Error(failure_message(call, driver_error_text(status), hint));
}

bool warn_on_cuda_error(cudaError_t status, std::string_view call) noexcept {
  return status == cudaSuccess || warn_failure(call, [&] { return runtime_error_text(status); });
}

bool warn_on_driver_error(CUresult status, std::string_view call) noexcept {
  return status == CUDA_SUCCESS || warn_failure(call, [&] { return driver_error_text(status); });
}

void* driver_entry_point(const char* symbol) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  check_cuda(cudaGetDriverEntryPointByVersion(symbol, &function, CUDA_VERSION, cudaEnableDefault,
                                              &found),
             fmt::format("cudaGetDriverEntryPointByVersion({})", symbol));
  if (found != cudaDriverEntryPointSuccess || function == nullptr) {
    throw Error(fmt::format(
        "{}the CUDA driver has no {} for CUDA {}.{} (query result {}); update the GPU driver",
        rank_prefix(), symbol, CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10,
        static_cast<int>(found)));
  }
  return function;
}

}  // namespace symm
