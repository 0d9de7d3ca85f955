// GEMM + all-scatter baselines with a GPU per rank (label multigpu): NCCL's baselines run
// beside the copy-engine ones. Skips with fewer than two GPUs.
#include "baseline_ranks.hpp"

namespace symm::test {
namespace {

BaselineCase two_gpu_case(gemm::DType dtype, gemm::BLayout layout) {
  BaselineCase c;
  c.shape = ops::AllScatterShape{1000, 2 * 264, 520, dtype, layout};
  c.must_run = {"cublaslt+copy_engine", "chunked_copy_engine"};
  if (SYMM_HAVE_NCCL)
    c.must_run.insert(c.must_run.end(), {"cublaslt+nccl", "nccl_ce_all_gather"});
  else
    c.must_skip = {"cublaslt+nccl", "nccl_ce_all_gather"};
  return c;
}

TEST(AllScatterBaselinesTwoGpus, EveryBaselineLeavesCOnEveryRankBf16KxN) {
  SYMM_REQUIRE_GPUS(2);
  const BaselineCase c = two_gpu_case(gemm::DType::bf16, gemm::BLayout::kn);
  EXPECT_EQ(run_on_ranks(2, [&](Runtime& rt) { return baselines_match_reference(rt, c); }), 0);
}

TEST(AllScatterBaselinesTwoGpus, EveryBaselineLeavesCOnEveryRankFp16NxK) {
  SYMM_REQUIRE_GPUS(2);
  const BaselineCase c = two_gpu_case(gemm::DType::fp16, gemm::BLayout::nk);
  EXPECT_EQ(run_on_ranks(2, [&](Runtime& rt) { return baselines_match_reference(rt, c); }), 0);
}

}  // namespace
}  // namespace symm::test
