// The GEMM against cuBLAS (fp32 output) on fresh random data: every built configuration,
// both input types, both B layouts, bf16/fp16 and fp32 outputs, ragged shapes, split-K,
// a shard written into a wider C, and the mma.sync fallback (forced and automatic).
// C is poisoned with NaN first: an unwritten element fails, and so does any NaN.
#include <cublas_v2.h>

#include <functional>
#include <ostream>
#include <vector>

#include "gemm_test_util.hpp"
#include "symm/gemm/gemm.hpp"

namespace symm::gemm {
// gtest prints a configuration by its name.
inline void PrintTo(const KernelConfig& c, std::ostream* os) { *os << to_string(c); }
}  // namespace symm::gemm

namespace symm::gemm::test {
namespace {

struct Shape {
  std::int64_t m, n, k;
  std::int64_t pad;  // extra elements per row of A, B and C (ragged strides stay 16-B aligned)
};

struct Case {
  Shape shape;
  DType in = DType::bf16, out = DType::bf16;
  BLayout layout = BLayout::nk;
  std::int64_t c_col_offset = 0;  // C is a column block of a wider matrix
};

class GemmVsCublas {
 public:
  GemmVsCublas() { EXPECT_EQ(cublasCreate(&handle_), CUBLAS_STATUS_SUCCESS); }
  ~GemmVsCublas() { cublasDestroy(handle_); }

  // Runs the problem `repeats` times with one Gemm (re-poisoning C each time, with another
  // B before the last run), checks the last result and returns the plan that ran.
  Plan run(const Case& c, const GemmOptions& options, int repeats = 1) {
    const auto [m, n, k, pad] = c.shape;
    const bool kn = c.layout == BLayout::kn;
    const std::int64_t lda = k + pad, ldb = (kn ? n : k) + pad;
    const std::int64_t ldc = n + 2 * c.c_col_offset + pad;
    std::mt19937_64 rng(fresh_seed());
    std::vector<float> a, b;
    const auto a_bits = random_matrix(m, lda, c.in, rng, a);
    const auto b_bits = random_matrix(kn ? k : n, ldb, c.in, rng, b);
    DeviceBuffer da(a_bits.size() * 2), db(b_bits.size() * 2);
    DeviceBuffer dc(m * ldc * dtype_bytes(c.out)), dref(m * n * 4);
    EXPECT_EQ(cudaMemcpy(da.get(), a_bits.data(), da.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
    void* c_ptr = dc.get<char>() + c.c_col_offset * dtype_bytes(c.out);
    const GemmProblem p{m, n, k, da.get(), lda, db.get(), ldb, c.layout, c_ptr, ldc, c.in, c.out};
    Gemm gemm(options);
    const Plan plan = gemm.plan(p);
    // Runs before the last multiply another B: a split-K finisher that did not wait for
    // this launch's partials (a counter the previous launch left set) would add the
    // previous product's partials and fail the check.
    std::vector<float> other_b;
    const auto other_b_bits = random_matrix(kn ? k : n, ldb, c.in, rng, other_b);
    for (int r = 0; r < repeats; ++r) {
      const auto& b_now = r + 1 < repeats ? other_b_bits : b_bits;
      EXPECT_EQ(cudaMemcpy(db.get(), b_now.data(), db.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
      EXPECT_EQ(cudaMemset(dc.get(), 0xFF, dc.bytes()), cudaSuccess);  // NaN in every output type
      gemm.run(p, plan, nullptr);
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << describe(p, plan);
    }

    reference(p, dref.get<float>());
    const auto got = download(dc.get(), m * ldc, c.out);
    const auto ref = download(dref.get(), m * n, DType::fp32);
    std::vector<float> got_block(got.begin() + c.c_col_offset, got.end());
    const auto cmp = compare(got_block, ldc, ref, n, m, n, output_tolerance(c.out));
    EXPECT_EQ(cmp.bad, 0) << describe(p, plan) << "\nfirst mismatch " << cmp.first_bad
                          << "; relative error " << cmp.rel_fro;
    EXPECT_LT(cmp.rel_fro, output_tolerance(c.out) / 2) << describe(p, plan);
    // Columns of the wider C outside the shard stay untouched (NaN).
    for (std::int64_t i = 0; i < m && c.c_col_offset > 0; ++i) {
      EXPECT_TRUE(std::isnan(got[i * ldc])) << "row " << i << " left of the shard was written";
      EXPECT_TRUE(std::isnan(got[i * ldc + c.c_col_offset + n])) << "row " << i << " right of it";
    }
    return plan;
  }

 private:
  // C_ref (M x N, fp32, row-major) = A * B: column-major cuBLAS computes C^T = B^T A^T.
  void reference(const GemmProblem& p, float* c_ref) {
    const cudaDataType t = p.in_dtype == DType::bf16 ? CUDA_R_16BF : CUDA_R_16F;
    const float alpha = 1, beta = 0;
    const cublasOperation_t op_b = p.b_layout == BLayout::kn ? CUBLAS_OP_N : CUBLAS_OP_T;
    ASSERT_EQ(cublasGemmEx(handle_, op_b, CUBLAS_OP_N, int(p.n), int(p.m), int(p.k), &alpha, p.b, t,
                           int(p.ldb), p.a, t, int(p.lda), &beta, c_ref, CUDA_R_32F, int(p.n),
                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }

  cublasHandle_t handle_ = nullptr;
};

std::string skip_reason(bool needs_wgmma) {
  if (auto why = missing_gpu(8, 0); !why.empty()) return why;
  if (needs_wgmma && !is_sm90()) return "the WGMMA kernel needs an sm_90 GPU";
  return {};
}

// Aligned; ragged in M, N and K (K tail inside a 64-wide stage); several tiles per block.
const Shape kShapes[] = {{256, 512, 256, 0}, {333, 472, 1000, 8}, {1024, 768, 2048, 0}};

void for_each_variant(const std::function<void(const Case&)>& f) {
  for (const Shape& s : kShapes)
    for (DType in : {DType::bf16, DType::fp16})
      for (DType out : {in, DType::fp32})
        for (BLayout l : {BLayout::nk, BLayout::kn}) f(Case{s, in, out, l});
}

class WgmmaConfigTest : public ::testing::TestWithParam<KernelConfig> {};

TEST_P(WgmmaConfigTest, MatchesCublas) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  GemmOptions o;
  o.config = GetParam();
  o.num_blocks = 20;  // several work units per persistent block
  o.gsize_m = 3;
  o.k_splits = 1;
  for_each_variant([&](const Case& c) {
    if (!GetParam().supports(c.layout)) return;  // refused at planning (plan_test)
    const Plan plan = check.run(c, o);
    EXPECT_EQ(plan.kind, KernelKind::wgmma);
    EXPECT_EQ(plan.config, GetParam());
  });
}

INSTANTIATE_TEST_SUITE_P(Built, WgmmaConfigTest, ::testing::ValuesIn(kWgmmaConfigs),
                         [](const auto& info) { return to_string(info.param); });

TEST(GemmSplitK, UnevenSplitsMatchCublas) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  for (int cluster : {1, 2})
    for (int splits : {2, 3, 7}) {
      GemmOptions o;
      o.k_splits = splits;
      o.num_blocks = 40;
      o.cluster_m = cluster;
      for (BLayout l : {BLayout::nk, BLayout::kn}) {
        const Plan plan = check.run(Case{{640, 576, 4160, 0}, DType::bf16, DType::bf16, l}, o, 2);
        EXPECT_EQ(plan.sched.k_splits, splits);
        EXPECT_EQ(plan.config.cluster_m, cluster);
      }
    }
}

// Stream-K: uneven ranges (odd worker counts, ragged K), tiles spread over up to several
// workers, data-parallel waves first (4 blocks), with and without clusters; three
// launches on one workspace reset the flags.
TEST(GemmStreamK, MatchesCublas) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  const KernelConfig configs[] = {{128, 192, 64, 4, 2}, {128, 256, 64, 4, 1}, {256, 128, 64, 4, 2}};
  for (const KernelConfig& config : configs)
    for (int blocks : {4, 14, 38, 132}) {
      GemmOptions o;
      o.config = config;
      o.stream_k = 1;
      o.num_blocks = blocks;
      for (BLayout l : {BLayout::nk, BLayout::kn}) {
        const Plan plan = check.run(Case{{700, 576, 4160, 8}, DType::fp16, DType::fp32, l}, o, 3);
        EXPECT_TRUE(plan.sched.stream_k()) << to_string(plan.config);
        if (blocks == 4) {
          EXPECT_GT(plan.sched.dp_tiles, 0) << to_string(plan.config);
        }
      }
    }
}

TEST(GemmSplitK, HeuristicSpreadsSkinnyShard) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  // Three launches with one workspace: the counters must reset themselves in between.
  const Plan plan =
      check.run(Case{{1024, 576, 16384, 0}, DType::fp16, DType::fp16, BLayout::nk}, {}, 3);
  EXPECT_TRUE(plan.sched.k_splits > 1 || plan.sched.stream_k())
      << "a skinny shard should be spread along K";
}

TEST(GemmShard, WritesOnlyItsColumnsOfAWiderC) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  for (BLayout l : {BLayout::nk, BLayout::kn})
    check.run(Case{{384, 320, 512, 0}, DType::bf16, DType::bf16, l, 64}, {});
}

TEST(GemmFallback, ForcedOnAlignedShapes) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(false); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  GemmOptions o;
  o.force_fallback = true;
  for (const KernelConfig& config : {FallbackConfig::desc, FallbackNarrowConfig::desc}) {
    o.config = config;
    for_each_variant([&](const Case& c) {
      if (!config.supports(c.layout)) return;  // refused at planning (plan_test)
      const Plan plan = check.run(c, o);
      EXPECT_EQ(plan.kind, KernelKind::fallback);
      EXPECT_EQ(plan.config, config);
      EXPECT_TRUE(plan.aligned_loads);
    });
  }
}

// Split-K in the fallback: uneven splits, ragged shapes, both loaders; three launches on
// one workspace (the last split of each tile resets its counter).
TEST(GemmFallback, SplitKMatchesCublas) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(false); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  GemmOptions o;
  o.force_fallback = true;
  for (int splits : {2, 3, 7})
    for (BLayout l : {BLayout::nk, BLayout::kn}) {
      o.k_splits = splits;
      const Plan plan = check.run(Case{{333, 472, 1000, 8}, DType::bf16, DType::fp32, l}, o, 3);
      EXPECT_EQ(plan.sched.k_splits, splits);
      check.run(Case{{197, 131, 301, 2}, DType::fp16, DType::fp16, l}, o, 3);  // element-wise loads
    }
  o.k_splits = 0;  // the heuristic splits a skinny shard, in 96-wide tiles
  const Plan plan = check.run(Case{{1024, 576, 16384, 0}, DType::bf16, DType::bf16, BLayout::nk}, o, 3);
  EXPECT_GT(plan.sched.k_splits, 1);
  EXPECT_EQ(plan.config, FallbackNarrowConfig::desc);
}

TEST(GemmFallback, ChosenForRowsTmaCannotDescribe) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(false); !why.empty()) GTEST_SKIP() << why;
  GemmVsCublas check;
  for (DType in : {DType::bf16, DType::fp16})
    for (BLayout l : {BLayout::nk, BLayout::kn}) {
      // pad 2: odd row strides (not 16-byte multiples) for A, B and C; K and N odd too.
      const Plan plan = check.run(Case{{197, 131, 301, 2}, in, in, l}, {});
      EXPECT_EQ(plan.kind, KernelKind::fallback);
      EXPECT_FALSE(plan.aligned_loads);
    }
}

}  // namespace
}  // namespace symm::gemm::test
