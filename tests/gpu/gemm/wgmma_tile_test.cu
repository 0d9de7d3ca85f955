// One stage of the real pipeline against a CPU reference: TMA loads (the library's tensor
// maps and producer), the mainloop's wgmma descriptors and instruction wrapper, and the
// documented accumulator layout. A swizzle or descriptor mismatch shows here as wrong
// numbers, before any larger kernel is involved.
#include <cuda/ptx>

#include <vector>

#include "gemm_test_util.hpp"
#include "symm/gemm/mainloop.cuh"
#include "symm/gemm/producer.cuh"
#include "symm/gemm/tensor_maps.hpp"

namespace symm::gemm::test {
namespace {

// Two consumer warpgroups, each computing its 64 rows of a (128, BLK_N) tile from one
// (BLK_M, BLK_N, 64) stage, written out through the documented fragment layout.
template <class Cfg, class In, BLayout BL>
__global__ void one_stage_kernel(const __grid_constant__ WgmmaParams p, float* out) {
  extern __shared__ std::uint8_t smem[];
  using Mainloop = WgmmaMainloop<Cfg, In, BL>;
  using Producer = TmaProducer<Cfg, In, BL>;
  auto& s = GemmSmem<Cfg, In>::from(smem);
  if (threadIdx.x == 0) {
    s.init_barriers();
    ptx::mbarrier_arrive_expect_tx(&s.full[0], Producer::STAGE_BYTES);
    Producer::load_stage(p, s, 0, 0, 0, 0, ClusterSeat{0, 0});
  }
  __syncthreads();
  const int wg = threadIdx.x / kWarpgroupThreads, t = threadIdx.x % kWarpgroupThreads;
  typename Mainloop::Accumulators acc;
  Mainloop::zero(acc);
  RingPos<Cfg::STAGES> pos;
  Mainloop::run(acc, s, pos, 1, wg, t == 0, nullptr, [] {});
  const int row = wg * 64 + 16 * (t / 32) + (t % 32) / 4;
  for (int j = 0; j < Cfg::BLK_N / 8; ++j)
    for (int half = 0; half < 2; ++half)
      for (int c = 0; c < 2; ++c)
        out[(row + 8 * half) * Cfg::BLK_N + 8 * j + 2 * (t % 4) + c] = acc[0][4 * j + 2 * half + c];
}

template <class Cfg, DType IN, BLayout BL>
void check_one_stage() {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = missing_gpu(9, 0); !why.empty() || !is_sm90())
    GTEST_SKIP() << "wgmma needs an sm_90 GPU: " << (why.empty() ? "not sm_90" : why);
  constexpr int M = 128, N = Cfg::BLK_N, K = 64;
  std::mt19937_64 rng(fresh_seed());
  std::vector<float> a, b;
  const auto a_bits = random_matrix(M, K, IN, rng, a);
  const bool kn = BL == BLayout::kn;
  const auto b_bits = random_matrix(kn ? K : N, kn ? N : K, IN, rng, b);

  const std::size_t a_bytes = a_bits.size() * 2, b_bytes = b_bits.size() * 2, out_bytes = M * N * 4;
  DeviceBuffer da(a_bytes, "A"), db(b_bytes, "B"), dout(out_bytes, "output tile");
  SYMM_TEST_CUDA(cudaMemcpy(da.get(), a_bits.data(), a_bytes, cudaMemcpyHostToDevice));
  SYMM_TEST_CUDA(cudaMemcpy(db.get(), b_bits.data(), b_bytes, cudaMemcpyHostToDevice));
  SYMM_TEST_CUDA(cudaMemset(dout.get(), 0xFF, out_bytes));  // NaN until written

  GemmProblem prob{M, N, K, da.get(), K, db.get(), kn ? N : K, BL, dout.get(), N, IN, DType::fp32};
  const auto maps = make_operand_maps(prob, Cfg::desc);
  WgmmaParams params{};
  params.a = maps.a;
  params.b = maps.b;
  params.c = maps.c;

  using In = element_t<IN>;
  const auto kernel = one_stage_kernel<Cfg, In, BL>;
  SYMM_TEST_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES));
  kernel<<<1, 2 * kWarpgroupThreads, Cfg::SMEM_BYTES>>>(params, static_cast<float*>(dout.get()));
  SYMM_TEST_CUDA(cudaGetLastError());
  SYMM_TEST_CUDA(cudaDeviceSynchronize());

  std::vector<float> ref(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = 0;
      for (int k = 0; k < K; ++k) sum += double(a[i * K + k]) * (kn ? b[k * N + j] : b[j * K + k]);
      ref[i * N + j] = float(sum);
    }
  const auto got = download(dout.get(), M * N, DType::fp32);
  const auto cmp = compare(got, N, ref, N, M, N, 1e-5);
  EXPECT_EQ(cmp.bad, 0) << "first mismatch " << cmp.first_bad << "; relative error " << cmp.rel_fro;
}

TEST(WgmmaTile, Bf16NkN256) { check_one_stage<TileConfig<128, 256, 64, 2>, DType::bf16, BLayout::nk>(); }
TEST(WgmmaTile, Bf16KnN256) { check_one_stage<TileConfig<128, 256, 64, 2>, DType::bf16, BLayout::kn>(); }
TEST(WgmmaTile, Fp16NkN128) { check_one_stage<TileConfig<128, 128, 64, 2>, DType::fp16, BLayout::nk>(); }
TEST(WgmmaTile, Fp16KnN192) { check_one_stage<TileConfig<128, 192, 64, 2>, DType::fp16, BLayout::kn>(); }
TEST(WgmmaTile, Fp16NkN144) { check_one_stage<TileConfig<128, 144, 64, 2>, DType::fp16, BLayout::nk>(); }
TEST(WgmmaTile, Bf16KnN64) { check_one_stage<TileConfig<128, 64, 64, 2>, DType::bf16, BLayout::kn>(); }

}  // namespace
}  // namespace symm::gemm::test
