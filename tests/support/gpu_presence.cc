#include "gpu_presence.hpp"

#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "symm/host/launch.hpp"

namespace symm::test {
namespace {

struct CudaCount {
  int count = 0;
  std::string why;  // when count is 0
};

// Counted in a child process: this one must stay free of CUDA, since its ranks are
// forked (and CUDA does not survive a fork).
CudaCount cuda_runtime_count() {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return {0, "pipe failed"};
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    const int answer[2] = {status == cudaSuccess ? count : 0, static_cast<int>(status)};
    const bool written = ::write(pipe_fds[1], answer, sizeof answer) == static_cast<ssize_t>(sizeof answer);
    ::_exit(written ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  int answer[2] = {0, -1};
  const bool read_all = child > 0 && ::read(pipe_fds[0], answer, sizeof answer) == static_cast<ssize_t>(sizeof answer);
  ::close(pipe_fds[0]);
  if (child > 0) ::waitpid(child, nullptr, 0);
  if (!read_all) return {0, "the process counting through the CUDA runtime gave no answer"};
  if (answer[1] != cudaSuccess) {
    const auto status = static_cast<cudaError_t>(answer[1]);
    return {0, fmt::format("{} ({})", cudaGetErrorName(status), cudaGetErrorString(status))};
  }
  return {answer[0], answer[0] == 0 ? "it found none" : ""};
}

bool gpus_required() {
  const char* value = std::getenv("SYMM_REQUIRE_GPU");
  return value != nullptr && std::string_view(value) == "1";
}

}  // namespace

void share_first_visible_gpu() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string list = visible != nullptr && *visible != '\0' ? visible : "0";
  ::setenv("CUDA_VISIBLE_DEVICES", list.substr(0, list.find(',')).c_str(), 1);
}

GpuVerdict gpu_verdict(int needed) {
  static const CudaCount cuda = cuda_runtime_count();  // before this process touches CUDA
  const int nvml = count_visible_gpus();
  if (nvml != cuda.count) {
    return {true, fmt::format("NVML counts {} visible GPU(s) but the CUDA runtime {}{}: the launcher counts "
                              "through NVML, so its GPU tests would be skipped or misplaced",
                              nvml, cuda.count, cuda.why.empty() ? "" : " (" + cuda.why + ")")};
  }
  if (nvml >= needed) return {};
  if (nvml == 0 && gpus_required()) {
    return {true, fmt::format("SYMM_REQUIRE_GPU=1, but no GPU is visible (CUDA runtime: {})", cuda.why)};
  }
  return {false, fmt::format("needs {} GPU(s), this machine has {} visible", needed, nvml)};
}

}  // namespace symm::test
