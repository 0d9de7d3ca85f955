#pragma once
// The GEMM + all-scatter baselines that push C by the copy engines into the peers' heaps
// (no NCCL): each rank's cuBLASLt GEMM writes its shard straight into its column block of
// the local C, and cudaMemcpy2DAsync copies the block into every peer's C.
//
//   cublaslt+copy_engine  the whole GEMM, then the whole block to each peer.
//   chunked_copy_engine   the GEMM in row blocks on the caller's stream; each block is
//                         pushed while the next is computed, then the pushes are joined.
// Both end with the cross-rank barrier, after which every peer's block has arrived.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "peer_push.hpp"
#include "row_blocks.hpp"
#include "shard_geometry.hpp"
#include "symm/baselines/all_scatter_baselines.hpp"
#include "symm/baselines/cublaslt_gemm.hpp"
#include "tuning_operands.hpp"

namespace symm::baselines {

class CublasLtCopyEngine final : public AllScatterBaseline {
 public:
  CublasLtCopyEngine(Runtime& rt, const ShardGeometry& g,
                     std::shared_ptr<ops::StreamBarrier> barrier, const TuningOperands& tuning,
                     cudaStream_t stream);

  std::string name() const override { return "cublaslt+copy_engine"; }
  std::string detail() const override;
  void run(const void* a, const void* b_shard, void* c, cudaStream_t stream) override;

 private:
  ShardGeometry g_;
  std::shared_ptr<ops::StreamBarrier> barrier_;
  PeerPush push_;
  std::unique_ptr<CublasLtGemm> gemm_;
};

class ChunkedCopyEngine final : public AllScatterBaseline {
 public:
  ChunkedCopyEngine(Runtime& rt, const ShardGeometry& g, const RowBlocks& blocks,
                    std::shared_ptr<ops::StreamBarrier> barrier, const TuningOperands& tuning,
                    cudaStream_t stream);

  std::string name() const override { return "chunked_copy_engine"; }
  std::string detail() const override;
  void run(const void* a, const void* b_shard, void* c, cudaStream_t stream) override;

  const RowBlocks& blocks() const { return blocks_; }
  // What the choice of `blocks` was made against, for detail().
  void set_choice_note(std::string note) { choice_note_ = std::move(note); }

 private:
  const CublasLtGemm& gemm_of(int block) const;

  ShardGeometry g_;
  RowBlocks blocks_;
  std::shared_ptr<ops::StreamBarrier> barrier_;
  PeerPush push_;
  std::unique_ptr<CublasLtGemm> block_gemm_;
  std::unique_ptr<CublasLtGemm> last_gemm_;  // only when the last block is shorter
  std::string choice_note_;
};

// Collective: times chunked_copy_engine for each of row_block_candidates(M) on the tuning
// operands (the slowest rank's median of a short do_bench) and keeps the fastest.
std::unique_ptr<ChunkedCopyEngine> make_fastest_chunked_copy_engine(
    Runtime& rt, const ShardGeometry& g, const std::shared_ptr<ops::StreamBarrier>& barrier,
    const TuningOperands& tuning, cudaStream_t stream);

}  // namespace symm::baselines
