#pragma once
// The GEMM GPU tests' reference check: a problem (shape, types, B layout, C as a column
// block of a wider matrix) on fresh random data, run by a Gemm with given options, C
// poisoned with NaN first, compared with cuBLAS's fp32 product.
#include <cublas_v2.h>

#include <cmath>
#include <string>
#include <vector>

#include "gemm_test_util.hpp"
#include "symm/gemm/gemm.hpp"

namespace symm::gemm::test {

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
    const std::size_t a_bytes = a_bits.size() * 2, b_bytes = b_bits.size() * 2;
    const std::size_t c_bytes = m * ldc * dtype_bytes(c.out);
    DeviceBuffer da(a_bytes, "A"), db(b_bytes, "B");
    DeviceBuffer dc(c_bytes, "C"), dref(m * n * 4, "reference C");
    EXPECT_EQ(cudaMemcpy(da.get(), a_bits.data(), a_bytes, cudaMemcpyHostToDevice), cudaSuccess);
    void* c_ptr = static_cast<char*>(dc.get()) + c.c_col_offset * dtype_bytes(c.out);
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
      EXPECT_EQ(cudaMemcpy(db.get(), b_now.data(), b_bytes, cudaMemcpyHostToDevice), cudaSuccess);
      EXPECT_EQ(cudaMemset(dc.get(), 0xFF, c_bytes), cudaSuccess);  // NaN in every output type
      gemm.run(p, plan, nullptr);
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << describe(p, plan);
    }

    reference(p, static_cast<float*>(dref.get()));
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

inline std::string skip_reason(bool needs_wgmma) {
  if (auto why = missing_gpu(8, 0); !why.empty()) return why;
  if (needs_wgmma && !is_sm90()) return "the WGMMA kernel needs an sm_90 GPU";
  return {};
}

}  // namespace symm::gemm::test
