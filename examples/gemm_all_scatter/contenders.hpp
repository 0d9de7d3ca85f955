#pragma once
// The contenders of a run, each validated and timed in turn on every rank (collectives):
// the requested variants, gemm_alone (the local shard's GEMM, no communication) and the
// baselines measured in the same run.
#include <memory>
#include <vector>

#include "measure.hpp"
#include "report.hpp"
#include "symm/baselines/all_scatter_baselines.hpp"

namespace symm::examples::gemm_all_scatter {

// One row per requested variant (one GemmAllScatter each, its heap flags released after).
std::vector<Row> measure_variants(Measurement& m);

// symm::gemm::Gemm on this rank's shard, written into its columns of C (ldc = N): what
// the variants would cost without communication. Timed only.
Row measure_gemm_alone(Measurement& m);

// The baselines of a point, built once (collective: an NCCL communicator each, cuBLASLt's
// algorithm and the row-block count timed) and measured in every round. Their heap
// allocations are released with the point's: destroy them before.
struct Baselines {
  Baselines() = default;
  Baselines(Baselines&&) = default;
  Baselines& operator=(Baselines&&) = delete;
  ~Baselines() { baselines::destroy_in_order(built); }
  std::vector<std::unique_ptr<baselines::AllScatterBaseline>> built;
  std::vector<baselines::SkippedBaseline> skipped;
};
Baselines make_baselines(Runtime& rt, const ops::AllScatterShape& shape, cudaStream_t stream);

// One row per baseline: measured, or skipped with the reason.
std::vector<Row> measure_baselines(Measurement& m, const Baselines& baselines);

// Adds a round's rows to `rows` (the first round's become them): timings of the same
// contender are combined; the first round's validation and plan stand.
void merge_round(std::vector<Row>& rows, std::vector<Row> round);

}  // namespace symm::examples::gemm_all_scatter
