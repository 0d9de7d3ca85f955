// Experiment: one block copying C tiles with TMA (global -> shared -> global), by block
// count, box size and stages; against the 16-byte vector copy.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>

#define CK(x) do { auto e = (x); if (e) { printf("%s:%d error %d\n", __FILE__, __LINE__, int(e)); exit(1); } } while (0)

__device__ inline uint32_t sa(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// Thread 0 streams pieces (box_cols x box_rows) of its tiles through `stages` slots: a load
// into a slot waits until the store from it has read it (wait_group.read), loads run ahead.
__global__ void __launch_bounds__(128, 1) tma_copy(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst,
                                                   int m, int n, int box_rows, int box_cols, int stages, int lag, int fence_mode, const unsigned long long* flag) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ __align__(8) uint64_t bar[16];
  if (threadIdx.x != 0) return;
  uint8_t* slots = smem + (1024 - sa(smem) % 1024) % 1024;
  const int piece_bytes = box_rows * box_cols * 2;
  const int pr = (m + box_rows - 1) / box_rows, pc = (n + box_cols - 1) / box_cols;
  // pieces of this block: piece ids blockIdx.x, +gridDim.x... (tiles interleaved as comm blocks do, 128x256 tiles)
  const int total = pr * pc;
  int mine = 0;
  for (int p = blockIdx.x; p < total; p += gridDim.x) ++mine;
  for (int s = 0; s < stages; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sa(&bar[s])));
  asm volatile("fence.mbarrier_init.release.cluster;");
  auto piece_xy = [&](int q, int& x, int& y) { const int p = blockIdx.x + q * gridDim.x; y = p / pc * box_rows; x = p % pc * box_cols; };
  auto load = [&](int q) {
    const int s = q % stages; int x, y; piece_xy(q, x, y);
    if (q % 2 == 0) {  // a tile of two pieces begins: what push_tiles does before loading it
      unsigned long long v = 0;
      if (fence_mode == 1) { asm volatile("fence.acq_rel.gpu;" ::: "memory"); asm volatile("fence.proxy.async.global;" ::: "memory"); }
      if (fence_mode == 2) asm volatile("fence.proxy.async.global;" ::: "memory");
      if (fence_mode == 3) { asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(flag) : "memory"); asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(flag + 1) : "memory");
                             if (v == 12345) return; asm volatile("fence.acq_rel.gpu;" ::: "memory"); asm volatile("fence.proxy.async.global;" ::: "memory"); }
      if (fence_mode == 4) { asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(flag) : "memory"); asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(flag + 1) : "memory");
                             if (v == 12345) return; asm volatile("fence.proxy.async.global;" ::: "memory"); }
    }
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sa(&bar[s])), "r"(piece_bytes));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(sa(slots + s * piece_bytes)), "l"(&src), "r"(x), "r"(y), "r"(sa(&bar[s])) : "memory");
  };
  for (int q = 0; q < stages && q < mine; ++q) load(q);
  for (int q = 0; q < mine; ++q) {
    const int s = q % stages;
    const uint32_t parity = (q / stages) & 1;
    uint32_t ok = 0;
    while (!ok) asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(ok) : "r"(sa(&bar[s])), "r"(parity) : "memory");
    int x, y; piece_xy(q, x, y);
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&dst), "r"(x), "r"(y), "r"(sa(slots + s * piece_bytes)) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    // refill the previous piece's slot once its store has read it (the newest store may still run)
    // refill the slot of piece q-lag+1 once at most lag-1 newer stores still read
    const int r = q - lag + 1;
    if (r >= 0 && r + stages < mine) {
      switch (lag) {
        case 1: asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); break;
        case 2: asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory"); break;
        case 4: asm volatile("cp.async.bulk.wait_group.read 3;" ::: "memory"); break;
        default: asm volatile("cp.async.bulk.wait_group.read 7;" ::: "memory"); break;
      }
      load(r + stages);
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

template <int kBatch>
__global__ void __launch_bounds__(384, 1) vec_copy(const uint8_t* src, uint8_t* dst, int m, int n, int blk_m, int blk_n, long ldc_bytes) {
  const int tiles_n = (n + blk_n - 1) / blk_n, tiles = ((m + blk_m - 1) / blk_m) * tiles_n;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int row0 = tile / tiles_n * blk_m, col0 = tile % tiles_n * blk_n;
    const int rows = min(blk_m, m - row0), cols = min(blk_n, n - col0);
    const int row_vectors = cols * 2 / 16, total = rows * row_vectors;
    for (int first = threadIdx.x; first < total; first += blockDim.x * kBatch) {
      uint4 v[kBatch]; long off[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = first + j * blockDim.x;
        off[j] = i < total ? (row0 + i / row_vectors) * ldc_bytes + long(col0) * 2 + (i % row_vectors) * 16 : -1;
        if (off[j] >= 0) v[j] = __ldcg(reinterpret_cast<const uint4*>(src + off[j]));
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j) if (off[j] >= 0) *reinterpret_cast<uint4*>(dst + off[j]) = v[j];
    }
  }
}

CUtensorMap make_map(void* p, int m, int n, int box_rows, int box_cols, bool swz = false) {
  CUtensorMap map;
  cuuint64_t dims[2] = {cuuint64_t(n), cuuint64_t(m)}, strides[1] = {cuuint64_t(n) * 2};
  cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)}, es[2] = {1, 1};
  CK(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, p, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            swz ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

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
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  f(); CK(cudaDeviceSynchronize());
  float best = 1e9;
  for (int r = 0; r < 10; ++r) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); best = ms < best ? ms : best; }
  CK(cudaGetLastError());
  return best;
}

int main(int argc, char** argv) {
  CK(cudaSetDevice(0)); cudaFree(0);
  const int m = 6144, n = argc > 1 ? atoi(argv[1]) : 4096; const size_t bytes = size_t(m) * n * 2;
  CK(cudaFuncSetAttribute(tma_copy, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  uint8_t *src, *dst; CK(cudaMalloc(&src, bytes)); CK(cudaMalloc(&dst, bytes)); CK(cudaMemset(src, 1, bytes));
  unsigned long long* flag; CK(cudaMalloc(&flag, 64)); CK(cudaMemset(flag, 0, 64));
  const char* modes[] = {"none", "fence.acq_rel.gpu+proxy", "proxy only", "2 relaxed polls+fence+proxy", "2 acquire loads+proxy"};
  CUtensorMap ms = make_map(src, m, n, 64, 256), md = make_map(dst, m, n, 64, 256);
  for (int blocks : {1, 16}) {
    for (int mode = 0; mode < 5; ++mode) {
      float t = time_ms([&] { tma_copy<<<blocks, 128, 64 * 256 * 2 * 6 + 1024>>>(ms, md, m, n, 64, 256, 6, 2, mode, flag); });
      printf("n=%d blocks=%2d 64x256 s6 l2, per tile: %-30s %5.1f GB/s/block\n", n, blocks, modes[mode], bytes / t / 1e6 / blocks);
    }
  }
}
