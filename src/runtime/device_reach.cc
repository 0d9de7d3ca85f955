// Whether a GPU's kernels can reach a pointer, from CUDA's pointer attributes (device_reach.hpp).
#include "symm/host/device_reach.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace symm {

std::string unreachable_from_device(const void* pointer, int device, std::string_view what) {
  cudaPointerAttributes attributes{};
  if (const cudaError_t status = cudaPointerGetAttributes(&attributes, pointer); status != cudaSuccess) {
    cudaGetLastError();  // not sticky: the next CUDA call must not report it again
    return fmt::format("{} ({}): cudaPointerGetAttributes failed ({}), so GPU {} cannot be known to reach it",
                       what, pointer, cudaGetErrorName(status), device);
  }
  // Memory CUDA does not know: malloc'd, the stack, or a VMM range reserved but not mapped.
  if (attributes.type != cudaMemoryTypeUnregistered) return {};
  int pageable = 0;
  if (cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device) == cudaSuccess && pageable)
    return {};
  cudaGetLastError();
  return fmt::format("{} ({}) is memory GPU {} cannot reach (host memory from malloc, new or the stack, or "
                     "an unmapped address): pass device memory (cudaMalloc, the heap's factories), or pin "
                     "host memory with cudaMallocHost or cudaHostRegister",
                     what, pointer, device);
}

}  // namespace symm
