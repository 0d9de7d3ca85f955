// How the cuBLASLt baseline picks its algorithm under an output check
// (symm::baselines::CublasLtGemm): the check sees each candidate's finished C, candidates it
// refuses do not compete, and a check that refuses every candidate leaves them all. One
// process, no ranks (CUDA is used directly).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_presence.hpp"
#include "symm/baselines/cublaslt_gemm.hpp"
#include "symm/common/dtype.hpp"

namespace symm::baselines {
namespace {

constexpr std::int64_t kM = 256, kN = 384, kK = 512;

// bf16 A (M x K), B (N x K) and C (M x N) on the GPU, A and B small multiples of 1/8.
class Operands {
 public:
  Operands() {
    std::vector<bf16> a(kM * kK), b(kN * kK);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = bf16(float(int(i % 7) - 3) / 8);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = bf16(float(int(i % 5) - 2) / 8);
    a_ = upload(a), b_ = upload(b);
    EXPECT_EQ(cudaMalloc(&c_, kM * kN * sizeof(bf16)), cudaSuccess);
  }
  ~Operands() { cudaFree(a_), cudaFree(b_), cudaFree(c_); }
  Operands(const Operands&) = delete;
  Operands& operator=(const Operands&) = delete;

  gemm::GemmProblem problem() const {
    return {kM, kN, kK, a_, kK, b_, kK, gemm::BLayout::nk, c_, kN, gemm::DType::bf16, gemm::DType::bf16};
  }
  // Elements of C that are NaN (the poison) or were never written.
  std::int64_t nan_elements() const {
    std::vector<bf16> c(kM * kN);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(c.data(), c_, c.size() * sizeof(bf16), cudaMemcpyDeviceToHost), cudaSuccess);
    std::int64_t nan = 0;
    for (const bf16 x : c) nan += std::isnan(float(x));
    return nan;
  }

 private:
  static void* upload(const std::vector<bf16>& host) {
    void* d = nullptr;
    EXPECT_EQ(cudaMalloc(&d, host.size() * sizeof(bf16)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d, host.data(), host.size() * sizeof(bf16), cudaMemcpyHostToDevice), cudaSuccess);
    return d;
  }
  void* a_ = nullptr;
  void* b_ = nullptr;
  void* c_ = nullptr;
};

// chosen() is "algo I of N (CONFIG)", followed by ", R refused: wrong output" when the
// check refused some.
struct Choice {
  int index = -1, candidates = -1, refused = 0;
};
Choice parse(const std::string& chosen) {
  Choice c;
  EXPECT_EQ(std::sscanf(chosen.c_str(), "algo %d of %d", &c.index, &c.candidates), 2) << chosen;
  EXPECT_NE(chosen.find(" ("), std::string::npos) << "no configuration in: " << chosen;
  const auto close = chosen.find("), ");
  if (close != std::string::npos) {
    EXPECT_EQ(std::sscanf(chosen.c_str() + close, "), %d refused", &c.refused), 1) << chosen;
  }
  return c;
}

TEST(CublasLtCandidates, TheCheckSeesEachCandidatesFinishedOutput) {
  SYMM_REQUIRE_GPUS(1);
  Operands ops;
  int calls = 0;
  std::vector<std::int64_t> nan_seen;
  const CublasLtGemm lt(ops.problem(), nullptr, [&] {
    ++calls;
    nan_seen.push_back(ops.nan_elements());
    return true;
  });
  EXPECT_EQ(calls, lt.candidates()) << "one check per candidate";
  for (std::size_t i = 0; i < nan_seen.size(); ++i) EXPECT_EQ(nan_seen[i], 0) << "candidate " << i;
  EXPECT_EQ(parse(lt.chosen()).refused, 0) << lt.chosen();
}

TEST(CublasLtCandidates, RefusedCandidatesDoNotCompete) {
  SYMM_REQUIRE_GPUS(1);
  Operands ops;
  int calls = 0;  // candidates 0, 2, 4, ... pass
  const CublasLtGemm lt(ops.problem(), nullptr, [&] { return calls++ % 2 == 0; });
  const Choice c = parse(lt.chosen());
  EXPECT_EQ(c.candidates, lt.candidates());
  EXPECT_EQ(c.refused, lt.candidates() / 2) << lt.chosen();
  EXPECT_EQ(c.index % 2, 0) << "a refused candidate was chosen: " << lt.chosen();
}

TEST(CublasLtCandidates, ACheckNoCandidatePassesLeavesThemAll) {
  SYMM_REQUIRE_GPUS(1);
  Operands ops;
  int calls = 0;
  const CublasLtGemm lt(ops.problem(), nullptr, [&] {
    ++calls;
    return false;
  });
  EXPECT_EQ(calls, lt.candidates());
  const Choice c = parse(lt.chosen());
  EXPECT_EQ(c.refused, 0) << lt.chosen();
  EXPECT_GE(c.index, 0);
  EXPECT_LT(c.index, lt.candidates());
}

}  // namespace
}  // namespace symm::baselines
