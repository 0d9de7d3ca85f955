#pragma once
// The non-fused ways to do what symm::ops::GemmAllScatter does, measured beside it in the
// same run: leave all of C (M x N, ldc = N, on the symmetric heap) on every rank, given A
// (M x K, dense) and this rank's B shard (K x N/world or N/world x K, dense).
//
//   cublaslt+nccl         cuBLASLt GEMM of the shard into this rank's slot of a
//                         world x M x N/world buffer, NCCL's in-place all-gather of the
//                         slots, one cudaMemcpy2DAsync per slot into C's columns.
//   cublaslt+copy_engine  cuBLASLt GEMM into C's column block, then one cudaMemcpy2DAsync of
//                         the block into each peer's C (one stream per peer).
//   chunked_copy_engine   the GEMM in row blocks, each block pushed to the peers by the copy
//                         engines while the next one is computed; the block count is the
//                         fastest of a few timed at construction.
//   nccl_ce_all_gather    as cublaslt+nccl, on a communicator with NCCL_CTA_POLICY_ZERO and a
//                         symmetric window (NCCL 2.28.3+), where NCCL's all-gather runs on
//                         the copy engines instead of SMs.
//
// Each run() is stream-ordered and ends with a cross-rank barrier (ops::StreamBarrier):
// when the stream passes it, every rank has all of C.
//
//   std::vector<symm::baselines::SkippedBaseline> skipped;
//   auto baselines = symm::baselines::make_all_scatter_baselines(rt, shape, stream, skipped);
//   for (auto& b : baselines) b->run(a, b_shard, c, stream);
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "symm/ops/gemm_all_scatter.hpp"

namespace symm {
class Runtime;
}

namespace symm::baselines {

class AllScatterBaseline {
 public:
  virtual ~AllScatterBaseline() = default;
  virtual std::string name() const = 0;    // "cublaslt+nccl", ...
  virtual std::string detail() const = 0;  // what it chose: "cublasLt algo 3 of 8; ..."
  // a: M x K (lda = K); b_shard: this rank's shard in the shape's b_layout, dense; c: M x N
  // (ldc = N) on the symmetric heap at the same offset on every rank. Operands must be as
  // aligned as the heap's allocations (256 bytes). Collective: every rank calls it.
  virtual void run(const void* a, const void* b_shard, void* c, cudaStream_t stream) = 0;
};

struct SkippedBaseline {
  std::string name;
  std::string reason;  // "NCCL not found at configure time", ...
};

// Collective: every rank calls it with the same shape. Builds every baseline that can run
// here, NCCL's first (then the copy-engine ones), and says in `skipped` why the others
// cannot. Destroy them first to last (destroy_in_order): while an exception unwinds, the
// NCCL ones abort their communicators, so that no later cudaFree waits behind an
// all-gather a failed peer never joined. Timings
// made here (cuBLASLt's algorithm, the chunk count) run on `stream` with scratch operands.
// Allocates a barrier's flags on the heap: destroy the baselines before releasing the heap
// past that allocation. Throws symm::Error when the shape cannot be scattered over the ranks.
std::vector<std::unique_ptr<AllScatterBaseline>> make_all_scatter_baselines(
    Runtime& rt, const ops::AllScatterShape& shape, cudaStream_t stream,
    std::vector<SkippedBaseline>& skipped);

// Destroys `baselines` first to last (std::vector leaves the order to the library).
void destroy_in_order(std::vector<std::unique_ptr<AllScatterBaseline>>& baselines) noexcept;

}  // namespace symm::baselines
