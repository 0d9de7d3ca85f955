// GEMM + all-scatter baselines on ranks sharing one GPU (they take turns: correctness
// only). NCCL puts one rank per GPU, so its baselines are skipped here, with that reason.
#include "baseline_ranks.hpp"

namespace symm::test {
namespace {

// Ragged on purpose: M is not a multiple of 128 (chunked_copy_engine's last block is
// shorter), nor are the shard width and K multiples of any tile. The ranks share one GPU
// even where several are visible (the multigpu tier spreads them).
BaselineCase shared_gpu_case(int world, gemm::DType dtype, gemm::BLayout layout) {
  share_first_visible_gpu();
  BaselineCase c;
  c.shape = ops::AllScatterShape{300, 264 * std::int64_t(world), 520, dtype, layout};
  c.must_run = {"cublaslt+copy_engine", "chunked_copy_engine"};
  c.must_skip = {"cublaslt+nccl", "nccl_ce_all_gather"};
  c.skip_reason_mentions = SYMM_HAVE_NCCL ? "share one GPU" : "NCCL not found at configure time";
  return c;
}

TEST(AllScatterBaselines, CopyEngineBaselinesOnTwoRanksOfOneGpu) {
  SYMM_REQUIRE_GPUS(1);
  const BaselineCase c = shared_gpu_case(2, gemm::DType::bf16, gemm::BLayout::kn);
  EXPECT_EQ(run_on_ranks(2, [&](Runtime& rt) { return baselines_match_reference(rt, c); }), 0);
}

TEST(AllScatterBaselines, CopyEngineBaselinesOnThreeRanksFp16NxK) {
  SYMM_REQUIRE_GPUS(1);
  const BaselineCase c = shared_gpu_case(3, gemm::DType::fp16, gemm::BLayout::nk);
  EXPECT_EQ(run_on_ranks(3, [&](Runtime& rt) { return baselines_match_reference(rt, c); }), 0);
}

TEST(AllScatterBaselines, OneRankKeepsItsOwnShard) {
  SYMM_REQUIRE_GPUS(1);
  BaselineCase c = shared_gpu_case(1, gemm::DType::bf16, gemm::BLayout::nk);
  c.must_skip.clear();
  if (SYMM_HAVE_NCCL) c.must_run.insert(c.must_run.end(), {"cublaslt+nccl", "nccl_ce_all_gather"});
  EXPECT_EQ(run_on_ranks(1, [&](Runtime& rt) { return baselines_match_reference(rt, c); }), 0);
}

}  // namespace
}  // namespace symm::test
