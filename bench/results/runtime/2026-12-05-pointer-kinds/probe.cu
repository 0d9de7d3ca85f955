// What cudaPointerGetAttributes reports for each kind of memory an operand can live in, and
// whether the GPU reads it (a kernel loads one byte from it), on the machine it runs on.
// Built and run by run.sh; its output is output.txt.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

// Setting up the memory under test must work; what the queries say is the measurement.
static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::printf("%s failed: %s\n", what, cudaGetErrorName(e));
    std::exit(1);
  }
}

__global__ void read_one(const unsigned char* p, int* out) { *out = p[0]; }

static const char* type_name(cudaMemoryType t) {
  switch (t) {
    case cudaMemoryTypeUnregistered: return "unregistered";
    case cudaMemoryTypeHost: return "host";
    case cudaMemoryTypeDevice: return "device";
    case cudaMemoryTypeManaged: return "managed";
  }
  return "?";
}

static void report(const char* what, const void* p, bool try_read) {
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, p);
  std::printf("%-34s %-24s type=%-12s device=%d devicePointer=%p", what, cudaGetErrorName(e), type_name(a.type),
              a.device, a.devicePointer);
  if (try_read) {
    int* out = nullptr;
    check(cudaMalloc(&out, sizeof(int)), "cudaMalloc(out)");
    read_one<<<1, 1>>>(static_cast<const unsigned char*>(p), out);
    const cudaError_t r = cudaDeviceSynchronize();
    std::printf(" kernel read: %s", cudaGetErrorName(r));
  }
  std::printf("\n");
}

int main() {
  int pageable = 0, uses_host_pt = 0;
  check(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0), "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&uses_host_pt, cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0),
        "cudaDeviceGetAttribute");
  std::printf("pageableMemoryAccess=%d pageableMemoryAccessUsesHostPageTables=%d\n", pageable, uses_host_pt);
  void* dev = nullptr;
  check(cudaMalloc(&dev, 1 << 20), "cudaMalloc");
  report("cudaMalloc", dev, true);
  report("cudaMalloc + 4096", static_cast<char*>(dev) + 4096, true);
  void* pinned = nullptr;
  check(cudaMallocHost(&pinned, 1 << 20), "cudaMallocHost");
  report("cudaMallocHost", pinned, true);
  void* managed = nullptr;
  check(cudaMallocManaged(&managed, 1 << 20), "cudaMallocManaged");
  report("cudaMallocManaged", managed, true);
  // VMM: the symmetric heap's kind of memory (and PyTorch's expandable segments).
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t gran = 0;
  if (cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS) {
    std::printf("cuMemGetAllocationGranularity failed\n");
    return 1;
  }
  CUmemGenericAllocationHandle h{};
  CUdeviceptr va = 0;
  const CUresult c1 = cuMemCreate(&h, gran, &prop, 0);
  const CUresult c2 = cuMemAddressReserve(&va, 2 * gran, 0, 0, 0);
  const CUresult c3 = cuMemMap(va, gran, 0, h, 0);
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  const CUresult c4 = cuMemSetAccess(va, gran, &access, 1);
  std::printf("vmm setup: create %d reserve %d map %d access %d (granularity %zu)\n", c1, c2, c3, c4, gran);
  if (c1 != CUDA_SUCCESS || c2 != CUDA_SUCCESS || c3 != CUDA_SUCCESS || c4 != CUDA_SUCCESS) return 1;
  report("vmm mapped", reinterpret_cast<void*>(va), true);
  report("vmm mapped + 4096", reinterpret_cast<void*>(va + 4096), true);
  report("vmm reserved, not mapped", reinterpret_cast<void*>(va + gran), false);
  std::vector<unsigned char> heap_vector(1 << 20, 1);
  report("malloc (std::vector)", heap_vector.data(), false);
  unsigned char on_stack[64] = {1};
  report("stack", on_stack, false);
  report("nullptr", nullptr, false);
  report("malloc, read by the GPU", heap_vector.data(), true);
  return 0;
}
