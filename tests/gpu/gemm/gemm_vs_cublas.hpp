#pragma once
// The GEMM GPU tests' reference check: a problem (shape, types, B layout, C as a column
// block of a wider matrix) on fresh random data, run by a Gemm with given options, C
// poisoned with NaN first, compared with cuBLAS's fp32 product.
#include <cublas_v2.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gemm_test_util.hpp"
#include "symm/common/error.hpp"
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
    Operands o(c);
    Gemm gemm(options);
    const Plan plan = gemm.plan(o.p);
    run_planned(o, gemm, plan, repeats);
    return plan;
  }

  // As run, where the options may be refused: a symm::Error from making the Gemm or its
  // plan is returned in `refusal`, with nothing run; anything failing later fails as in run.
  std::optional<Plan> run_unless_refused(const Case& c, const GemmOptions& options, int repeats,
                                         std::string& refusal) {
    Operands o(c);
    std::optional<Gemm> gemm;
    std::optional<Plan> plan;
    try {
      gemm.emplace(options);
      plan = gemm->plan(o.p);
    } catch (const Error& e) {
      refusal = e.what();
      return std::nullopt;
    }
    run_planned(o, *gemm, *plan, repeats);
    return plan;
  }

  // The problems of `cases` through one Gemm's run(p, stream), which plans a problem unless
  // it is the last one it planned, in the order given (a case may come back), each result
  // checked after its run.
  void run_in_turn(const std::vector<Case>& cases, const GemmOptions& options) {
    std::vector<std::unique_ptr<Operands>> operands;
    for (const Case& c : cases) operands.push_back(std::make_unique<Operands>(c));
    Gemm gemm(options);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      Operands& o = *operands[i];
      o.upload_b(o.b_bits);
      o.poison_c();
      gemm.run(o.p, nullptr);
      const std::string what = "case " + std::to_string(i) + ": " + describe(o.p, gemm.plan(o.p));
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
      check(o, what);
    }
  }

  // One Gemm runs the `before` cases, then `captured` once and again captured into a CUDA
  // graph on a stream of its own, then the `between` cases (growing its scratch, or
  // reusing it for other regions); then the graph is replayed with another B and its C
  // checked. A captured launch must keep its scratch, and find its split-K counters zero,
  // whatever ran in between.
  void replay_after(const std::vector<Case>& before, const Case& captured, const std::vector<Case>& between,
                    const GemmOptions& options) {
    Operands o(captured);
    std::vector<std::unique_ptr<Operands>> others;
    for (const Case& c : between) others.push_back(std::make_unique<Operands>(c));
    const OwnedStream stream;
    Gemm gemm(options);
    for (const Case& c : before) {
      Operands first(c);
      first.upload_b(first.b_bits);
      gemm.run(first.p, stream.get());
      SYMM_TEST_CUDA(cudaStreamSynchronize(stream.get()));
    }
    const Plan plan = gemm.plan(o.p);
    o.upload_b(o.other_b_bits);
    gemm.run(o.p, plan, stream.get());  // outside the capture: the Gemm allocates what the plan needs
    SYMM_TEST_CUDA(cudaStreamSynchronize(stream.get()));
    cudaGraph_t graph = nullptr;
    SYMM_TEST_CUDA(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
    gemm.run(o.p, plan, stream.get());
    SYMM_TEST_CUDA(cudaStreamEndCapture(stream.get(), &graph));
    cudaGraphExec_t exec = nullptr;
    SYMM_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (std::size_t i = 0; i < others.size(); ++i) {
      Operands& other = *others[i];
      other.upload_b(other.b_bits);
      other.poison_c();
      gemm.run(other.p, stream.get());
      SYMM_TEST_CUDA(cudaStreamSynchronize(stream.get()));
      check(other, "between, case " + std::to_string(i) + ": " + describe(other.p, gemm.plan(other.p)));
    }
    o.upload_b(o.b_bits);
    o.poison_c();
    SYMM_TEST_CUDA(cudaGraphLaunch(exec, stream.get()));
    EXPECT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess) << "replay of " << describe(o.p, plan);
    check(o, "replayed after the others: " + describe(o.p, plan));
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }

 private:
  // A case's operands on the device: A, B (and another B), C (NaN-poisoned before each run)
  // and the reference.
  struct Operands {
    Case c;
    std::int64_t ldc;
    std::vector<std::uint16_t> b_bits, other_b_bits;
    DeviceBuffer a, b, out, ref;
    GemmProblem p;

    explicit Operands(const Case& cs) : c(cs) {
      const auto [m, n, k, pad] = c.shape;
      const bool kn = c.layout == BLayout::kn;
      const std::int64_t lda = k + pad, ldb = (kn ? n : k) + pad;
      ldc = n + 2 * c.c_col_offset + pad;
      std::mt19937_64 rng(fresh_seed());
      std::vector<float> unused;
      const auto a_bits = random_matrix(m, lda, c.in, rng, unused);
      b_bits = random_matrix(kn ? k : n, ldb, c.in, rng, unused);
      other_b_bits = random_matrix(kn ? k : n, ldb, c.in, rng, unused);
      a = DeviceBuffer(a_bits.size() * 2, "A");
      b = DeviceBuffer(b_bits.size() * 2, "B");
      out = DeviceBuffer(c_bytes(), "C");
      ref = DeviceBuffer(m * n * 4, "reference C");
      EXPECT_EQ(cudaMemcpy(a.get(), a_bits.data(), a_bits.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
      void* c_ptr = static_cast<char*>(out.get()) + c.c_col_offset * dtype_bytes(c.out);
      p = GemmProblem{m, n, k, a.get(), lda, b.get(), ldb, c.layout, c_ptr, ldc, c.in, c.out};
    }
    std::size_t c_bytes() const { return c.shape.m * ldc * dtype_bytes(c.out); }
    void upload_b(const std::vector<std::uint16_t>& bits) {
      EXPECT_EQ(cudaMemcpy(b.get(), bits.data(), bits.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
    }
    void poison_c() { EXPECT_EQ(cudaMemset(out.get(), 0xFF, c_bytes()), cudaSuccess); }  // NaN in every type
  };

  // Runs before the last multiply another B: a split-K finisher that did not wait for
  // this launch's partials (a counter the previous launch left set) would add the
  // previous product's partials and fail the check.
  void run_planned(Operands& o, Gemm& gemm, const Plan& plan, int repeats) {
    for (int r = 0; r < repeats; ++r) {
      o.upload_b(r + 1 < repeats ? o.other_b_bits : o.b_bits);
      o.poison_c();
      gemm.run(o.p, plan, nullptr);
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << describe(o.p, plan);
    }
    check(o, describe(o.p, plan));
  }

  // C (with B as last uploaded) against cuBLAS; the columns of a wider C around the block
  // untouched.
  void check(Operands& o, const std::string& what) {
    const auto [m, n, k, pad] = o.c.shape;
    reference(o.p, static_cast<float*>(o.ref.get()));
    const auto got = download(o.out.get(), m * o.ldc, o.c.out);
    const auto ref = download(o.ref.get(), m * n, DType::fp32);
    std::vector<float> got_block(got.begin() + o.c.c_col_offset, got.end());
    const auto cmp = compare(got_block, o.ldc, ref, n, m, n, output_tolerance(o.c.out));
    EXPECT_EQ(cmp.bad, 0) << what << "\nfirst mismatch " << cmp.first_bad << "; relative error " << cmp.rel_fro;
    EXPECT_LT(cmp.rel_fro, output_tolerance(o.c.out) / 2) << what;
    for (std::int64_t i = 0; i < m && o.c.c_col_offset > 0; ++i) {
      EXPECT_TRUE(std::isnan(got[i * o.ldc])) << "row " << i << " left of the shard was written";
      EXPECT_TRUE(std::isnan(got[i * o.ldc + o.c.c_col_offset + n])) << "row " << i << " right of it";
    }
  }

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
