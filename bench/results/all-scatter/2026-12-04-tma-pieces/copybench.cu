// Experiment: how fast one block copies tiles of a row-major C to another buffer (the comm
// blocks' loop), by block count, batch, and memory kind (cudaMalloc vs VMM like the heap).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <vector>

template <int kBatch>
__global__ void __launch_bounds__(384, 1) tile_copy(const uint8_t* src, uint8_t* dst, int m, int n, int blk_m, int blk_n, long ldc_bytes) {
  const int tiles_n = (n + blk_n - 1) / blk_n, tiles = ((m + blk_m - 1) / blk_m) * tiles_n;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int row0 = tile / tiles_n * blk_m, col0 = tile % tiles_n * blk_n;
    const int rows = min(blk_m, m - row0), cols = min(blk_n, n - col0);
    const int row_vectors = cols * 2 / 16, total = rows * row_vectors;
    for (int first = threadIdx.x; first < total; first += blockDim.x * kBatch) {
      uint4 v[kBatch];
      long off[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = first + j * blockDim.x;
        off[j] = i < total ? (row0 + i / row_vectors) * ldc_bytes + long(col0) * 2 + (i % row_vectors) * 16 : -1;
        if (off[j] >= 0) v[j] = __ldcg(reinterpret_cast<const uint4*>(src + off[j]));
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j)
        if (off[j] >= 0) *reinterpret_cast<uint4*>(dst + off[j]) = v[j];
    }
  }
}

__global__ void linear_copy(const uint4* src, uint4* dst, long n) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n; i += long(gridDim.x) * blockDim.x) dst[i] = __ldcg(src + i);
}

#define CK(x) do { auto e = (x); if (e) { printf("%s:%d error %d\n", __FILE__, __LINE__, int(e)); exit(1); } } while (0)

void* vmm_alloc(size_t bytes) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t g = 0;
  CK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  bytes = (bytes + g - 1) / g * g;
  CUmemGenericAllocationHandle h;
  CK(cuMemCreate(&h, bytes, &prop, 0));
  CUdeviceptr p;
  CK(cuMemAddressReserve(&p, bytes, g, 0, 0));
  CK(cuMemMap(p, bytes, 0, h, 0));
  CUmemAccessDesc a{};
  a.location = prop.location;
  a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CK(cuMemSetAccess(p, bytes, &a, 1));
  return reinterpret_cast<void*>(p);
}

template <class F>
float time_ms(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  f();
  cudaDeviceSynchronize();
  float best = 1e9;
  for (int r = 0; r < 10; ++r) {
    cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms;
  }
  CK(cudaGetLastError());
  return best;
}

int main() {
  CK(cudaSetDevice(0));
  cudaFree(0);
  const int m = 6144, n = 4096;  // bf16 C, 48 MiB
  const size_t bytes = size_t(m) * n * 2;
  for (int kind = 0; kind < 2; ++kind) {
    uint8_t *src, *dst;
    if (kind == 0) { CK(cudaMalloc(&src, bytes)); CK(cudaMalloc(&dst, bytes)); }
    else { src = (uint8_t*)vmm_alloc(bytes); dst = (uint8_t*)vmm_alloc(bytes); }
    CK(cudaMemset(src, 1, bytes));
    for (int blocks : {1, 2, 4, 8, 16, 32, 66, 132}) {
      float t4 = time_ms([&] { tile_copy<4><<<blocks, 384>>>(src, dst, m, n, 128, 256, long(n) * 2); });
      float t8 = time_ms([&] { tile_copy<8><<<blocks, 384>>>(src, dst, m, n, 128, 256, long(n) * 2); });
      float tl = time_ms([&] { linear_copy<<<blocks, 384>>>((const uint4*)src, (uint4*)dst, long(bytes / 16)); });
      printf("%s blocks=%3d tile_copy<4> %7.1f GB/s/block (%7.1f total)  <8> %7.1f /block  linear %7.1f /block (%7.1f total)\n",
             kind ? "vmm " : "malloc", blocks, bytes / t4 / 1e6 / blocks, bytes / t4 / 1e6, bytes / t8 / 1e6 / blocks,
             bytes / tl / 1e6 / blocks, bytes / tl / 1e6);
    }
  }
}
