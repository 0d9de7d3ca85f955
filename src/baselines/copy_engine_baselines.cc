#include "copy_engine_baselines.hpp"

#include <fmt/format.h>

#include <limits>

#include "symm/host/bench.hpp"
#include "symm/host/runtime.hpp"

namespace symm::baselines {
namespace {

// A short timing: enough to order candidates that differ by a few percent.
constexpr int kChoiceWarmup = 2, kChoiceRepeat = 5;

// cuBLASLt for `rows` rows of the shard from row0, its algorithm the fastest of those whose
// output passes the check the programs validate with.
std::unique_ptr<CublasLtGemm> block_gemm(const ShardGeometry& g, std::int64_t row0, std::int64_t rows,
                                         const TuningOperands& tuning, cudaStream_t stream) {
  const gemm::GemmProblem p =
      shard_gemm(g, row0, rows, tuning.a(), tuning.b_shard(), byte_offset(tuning.c(), g.c_offset(g.rank, 0)), g.n);
  return std::make_unique<CublasLtGemm>(p, stream, matches_reference(p, stream));
}

}  // namespace

CublasLtCopyEngine::CublasLtCopyEngine(Runtime& rt, const ShardGeometry& g,
                                       std::shared_ptr<ops::StreamBarrier> barrier,
                                       const TuningOperands& tuning, cudaStream_t stream)
    : g_(g),
      barrier_(std::move(barrier)),
      push_(rt.heap(), g),
      gemm_(block_gemm(g, 0, g.m, tuning, stream)) {}

std::string CublasLtCopyEngine::detail() const {
  return fmt::format(
      "cublasLt {}; the {} x {} block to every peer ({}) by cudaMemcpy2DAsync, a stream per peer",
      gemm_->chosen(), g_.m, g_.shard_cols, push_.peers());
}

void CublasLtCopyEngine::run(const void* a, const void* b_shard, void* c, cudaStream_t stream) {
  push_.require_on_heap(c);
  gemm_->run(a, b_shard, byte_offset(c, g_.c_offset(g_.rank, 0)), stream);
  push_.push(c, 0, g_.m, stream);
  push_.join(stream);
  barrier_->wait(stream);
}

ChunkedCopyEngine::ChunkedCopyEngine(Runtime& rt, const ShardGeometry& g, const RowBlocks& blocks,
                                     std::shared_ptr<ops::StreamBarrier> barrier,
                                     const TuningOperands& tuning, cudaStream_t stream)
    : g_(g),
      blocks_(blocks),
      barrier_(std::move(barrier)),
      push_(rt.heap(), g),
      block_gemm_(block_gemm(g, 0, blocks.rows, tuning, stream)) {
  if (blocks.last_rows != blocks.rows)
    last_gemm_ = block_gemm(g, blocks.first_row(blocks.count - 1), blocks.last_rows, tuning, stream);
}

const CublasLtGemm& ChunkedCopyEngine::gemm_of(int block) const {
  return blocks_.rows_of(block) == blocks_.rows ? *block_gemm_ : *last_gemm_;
}

std::string ChunkedCopyEngine::detail() const {
  std::string text = fmt::format("{}; cublasLt {}", describe(blocks_), block_gemm_->chosen());
  if (last_gemm_) text += fmt::format(" (last block {})", last_gemm_->chosen());
  text += fmt::format("; each block to every peer ({}) by cudaMemcpy2DAsync, a stream per peer",
                      push_.peers());
  if (!choice_note_.empty()) text += "; " + choice_note_;
  return text;
}

void ChunkedCopyEngine::run(const void* a, const void* b_shard, void* c, cudaStream_t stream) {
  push_.require_on_heap(c);
  void* block_column = byte_offset(c, g_.c_offset(g_.rank, 0));
  for (int block = 0; block < blocks_.count; ++block) {
    const std::int64_t row0 = blocks_.first_row(block);
    gemm_of(block).run(byte_offset(a, g_.a_offset(row0)), b_shard,
                       byte_offset(block_column, static_cast<std::size_t>(row0) * g_.c_pitch()),
                       stream);
    push_.push(c, row0, blocks_.rows_of(block), stream);
  }
  push_.join(stream);
  barrier_->wait(stream);
}

std::unique_ptr<ChunkedCopyEngine> make_fastest_chunked_copy_engine(
    Runtime& rt, const ShardGeometry& g, const std::shared_ptr<ops::StreamBarrier>& barrier,
    const TuningOperands& tuning, cudaStream_t stream) {
  CudaBenchDevice device(stream);
  BenchOptions options;
  options.n_warmup = kChoiceWarmup;
  options.n_repeat = kChoiceRepeat;
  std::unique_ptr<ChunkedCopyEngine> fastest;
  double fastest_ms = std::numeric_limits<double>::infinity();
  std::string timings;
  for (const RowBlocks& blocks : row_block_candidates(g.m)) {
    auto candidate = std::make_unique<ChunkedCopyEngine>(rt, g, blocks, barrier, tuning, stream);
    const BenchResult mine = do_bench(
        device, [&] { candidate->run(tuning.a(), tuning.b_shard(), tuning.c(), stream); },
        [&] { rt.barrier(stream); }, [] {}, options);
    // Every rank gets the same summary, so every rank keeps the same candidate.
    const double ms = summarize_across_ranks(rt.team(), mine).headline_ms;
    timings += fmt::format("{}{} -> {:.3f} ms", timings.empty() ? "" : ", ", blocks.count, ms);
    if (ms < fastest_ms) fastest_ms = ms, fastest = std::move(candidate);
  }
  fastest->set_choice_note(fmt::format(
      "block count timed at construction (slowest rank's median of {} runs): {}", kChoiceRepeat,
      timings));
  return fastest;
}

}  // namespace symm::baselines
