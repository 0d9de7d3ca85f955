// Experiment: does a TMA copy block's rate depend on which SMs copy (two SMs of one TPC,
// smid/2, sharing a path to memory)? 132 blocks launched, one per SM; only the SMs of a
// chosen set copy, the rest exit, or stream loads into shared memory (a GEMM's traffic).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <vector>

#define CK(x) do { auto e = (x); if (e) { printf("%s:%d error %d\n", __FILE__, __LINE__, int(e)); exit(1); } } while (0)
__device__ inline uint32_t sa(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }
__device__ inline uint32_t smid() { uint32_t r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }

constexpr int kRows = 64, kCols = 256, kStages = 6, kPiece = kRows * kCols * 2;

__device__ void wait_bar(uint64_t* bar, uint32_t parity) {
  uint32_t ok = 0;
  while (!ok) asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(ok) : "r"(sa(bar)), "r"(parity) : "memory");
}

// role[smid]: worker index (>= 0) copies pieces w, w+W...; -2: loads `hog` pieces repeatedly (no stores); -1: exits.
__global__ void __launch_bounds__(128, 1) sm_copy(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst,
                                                  const int* role, int workers, int m, int n, int hog_rounds, unsigned* done) {
  extern __shared__ uint8_t smem[];
  __shared__ __align__(8) uint64_t bar[kStages];
  if (threadIdx.x != 0) return;
  uint8_t* slots = smem + (128 - sa(smem) % 128) % 128;
  const int me = role[smid()];
  if (me == -1) return;
  for (int s = 0; s < kStages; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sa(&bar[s])));
  asm volatile("fence.mbarrier_init.release.cluster;");
  const int pc = n / kCols, total = (m / kRows) * pc;
  auto load = [&](int p, int s) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sa(&bar[s])), "r"(kPiece));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(sa(slots + s * kPiece)), "l"(&src), "r"(p % pc * kCols), "r"(p / pc * kRows), "r"(sa(&bar[s])) : "memory");
  };
  if (me == -2) {  // load stream until the copiers are done
    int q = 0;
    for (int r = 0; r < hog_rounds && *(volatile unsigned*)done < unsigned(workers); ++r) {
      for (int s = 0; s < kStages; ++s, ++q) load((q * 37 + smid() * 101) % total, s);
      for (int s = 0; s < kStages; ++s) wait_bar(&bar[s], r & 1);
    }
    return;
  }
  int mine = 0;
  for (int p = me; p < total; p += workers) ++mine;
  for (int q = 0; q < kStages && q < mine; ++q) load(me + q * workers, q);
  for (int q = 0; q < mine; ++q) {
    const int s = q % kStages, p = me + q * workers;
    wait_bar(&bar[s], (q / kStages) & 1);
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&dst), "r"(p % pc * kCols), "r"(p / pc * kRows), "r"(sa(slots + s * kPiece)) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    const int r = q - 1;
    if (r >= 0 && r + kStages < mine) {
      asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
      load(me + (r + kStages) * workers, r % kStages);
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  atomicAdd(done, 1u);
}

CUtensorMap make_map(void* p, int m, int n) {
  CUtensorMap map;
  cuuint64_t dims[2] = {cuuint64_t(n), cuuint64_t(m)}, strides[1] = {cuuint64_t(n) * 2};
  cuuint32_t box[2] = {kCols, kRows}, es[2] = {1, 1};
  CK(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, p, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

int main() {
  CK(cudaSetDevice(0)); cudaFree(0);
  int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int m = 6144, n = 4096; const size_t bytes = size_t(m) * n * 2;
  uint8_t *src, *dst, *hsrc; CK(cudaMalloc(&src, bytes)); CK(cudaMalloc(&dst, bytes)); CK(cudaMalloc(&hsrc, bytes));
  CK(cudaMemset(src, 1, bytes));
  CUtensorMap ms = make_map(src, m, n), md = make_map(dst, m, n), mh = make_map(hsrc, m, n);
  const int smem = kStages * kPiece + 128;
  CK(cudaFuncSetAttribute(sm_copy, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int* role; unsigned* done; CK(cudaMalloc(&role, 1024 * sizeof(int))); CK(cudaMalloc(&done, 4));
  // which SM a block lands on, to see the smid range
  auto run = [&](const char* name, std::vector<int> copiers, bool hog_rest, std::vector<int> hogs = {}) {
    std::vector<int> r(1024, -1);
    for (size_t i = 0; i < copiers.size(); ++i) r[copiers[i]] = int(i);
    if (hog_rest) for (int s = 0; s < sms; ++s) if (r[s] == -1) r[s] = -2;
    for (int h : hogs) r[h] = -2;
    cudaMemcpy(role, r.data(), r.size() * sizeof(int), cudaMemcpyHostToDevice);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    float best = 1e9;
    for (int rep = 0; rep < 6; ++rep) {
      cudaMemset(done, 0, 4);
      cudaEventRecord(a);
      sm_copy<<<sms, 128, smem>>>(ms, md, role, int(copiers.size()), m, n, 1 << 20, done);
      cudaEventRecord(b); CK(cudaEventSynchronize(b));
      float t; cudaEventElapsedTime(&t, a, b); if (rep && t < best) best = t;
    }
    CK(cudaGetLastError());
    printf("%-40s copiers=%3zu %6.1f GB/s/copier (%7.1f total)\n", name, copiers.size(), bytes / best / 1e6 / copiers.size(), bytes / best / 1e6);
  };
  std::vector<int> pairs, spread, odd;
  for (int i = 0; i < 16; ++i) { pairs.push_back(i); spread.push_back(2 * i); odd.push_back(2 * i + 1); }
  run("16 SMs, both of 8 TPCs (0-15)", pairs, false);
  run("16 SMs, one per TPC (even 0-30)", spread, false);
  run("16 SMs, one per TPC (odd 1-31)", odd, false);
  std::vector<int> evens_of_odd; for (int x : odd) evens_of_odd.push_back(x - 1);
  run("16 odd SMs, their even partners load", odd, false, evens_of_odd);
  run("16 odd SMs, all other SMs load", odd, true);
  std::vector<int> last; for (int i = sms - 16; i < sms; ++i) last.push_back(i);
  run("16 SMs, the last 16 smids", last, false);
  std::vector<int> spread32; for (int i = 0; i < 32; ++i) spread32.push_back(2 * i);
  std::vector<int> pairs32; for (int i = 0; i < 32; ++i) pairs32.push_back(i);
  run("32 SMs, one per TPC", spread32, false);
  run("32 SMs, both of 16 TPCs", pairs32, false);
  std::vector<int> spread64; for (int i = 0; i < 64; ++i) spread64.push_back(2 * i);
  run("64 SMs, one per TPC", spread64, false);
}
