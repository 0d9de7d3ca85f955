#pragma once
// Checked CUDA calls. A failure throws symm::Error naming the rank (SYMM_RANK), the
// call, CUDA's error name and text, and what the user can do about it:
//
//   SYMM_CUDA_CHECK(cudaMalloc(&p, n));                        // runtime API
//   symm::check_cuda(cudaMalloc(&p, n), "cudaMalloc(flush buffer)", "free GPU memory");
//   SYMM_DRIVER_CHECK(cuMemMap(...));                          // driver API
//
// The driver API is reached through cudaGetDriverEntryPointByVersion, never by linking
// libcuda: programs then load on machines without a GPU driver (CI), where the cpu
// test tier runs. Get a driver function with SYMM_DRIVER_FUNCTION(cuMemCreate).
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <string_view>

namespace symm {

void check_cuda(cudaError_t status, std::string_view call, std::string_view hint = {});
void check_driver(CUresult status, std::string_view call, std::string_view hint = {});

// For destructors, which must not throw: logs the failure and returns false.
bool warn_on_cuda_error(cudaError_t status, std::string_view call) noexcept;
bool warn_on_driver_error(CUresult status, std::string_view call) noexcept;

// "rank 3: " when SYMM_RANK is set (every rank started by symm::launch), else "".
std::string_view rank_prefix();

// The driver entry point `symbol` for the ABI of the CUDA headers we compile against;
// throws symm::Error when the driver lacks it (or there is no driver).
void* driver_entry_point(const char* symbol);

template <class Function>
Function* driver_function(const char* symbol) {
  return reinterpret_cast<Function*>(driver_entry_point(symbol));
}

}  // namespace symm

#define SYMM_CUDA_CHECK(call) ::symm::check_cuda((call), #call)
#define SYMM_DRIVER_CHECK(call) ::symm::check_driver((call), #call)
#define SYMM_DRIVER_FUNCTION(name) ::symm::driver_function<decltype(name)>(#name)
