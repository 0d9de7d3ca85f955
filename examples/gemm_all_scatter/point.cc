// One problem measured on every rank (point.hpp).
#include "point.hpp"

#include <algorithm>

#include "contenders.hpp"
#include "operands.hpp"
#include "reference.hpp"
#include "trace_file.hpp"
#include "symm/host/heap.hpp"

namespace symm::examples::gemm_all_scatter {

std::vector<Row> measure_point(Runtime& rt, const Point& point, cudaStream_t stream) {
  const CommandLine& cl = point.cl;
  HeapScope heap_scope(rt.heap());
  const Operands operands = make_operands(rt, cl.shape, point.seed, stream);
  rt.barrier(stream);
  std::optional<Reference> reference;
  if (cl.validate) reference.emplace(cl.shape, rt.world(), operands.a, point.seed, stream);
  // One command line per group (Measurement keeps a reference to it).
  std::vector<CommandLine> groups(point.groups.size(), cl);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    groups[g].op.config = point.groups[g].config;
    groups[g].variants = point.groups[g].variants;
  }
  // Contenders are timed in interleaved rounds, each taking its share of the iterations,
  // so a GPU whose clock drifts under sustained load (it does: 0.87 -> 0.98 ms over 30
  // samples of one contender) does not favour whichever contender runs first.
  const int rounds = cl.benchmark ? std::min(point.counts.n_repeat, kTimingRounds) : 1;
  // Built in the first round, where the variants' heap allocations are already released,
  // and kept for the others: their setup (NCCL communicators, cuBLASLt's algorithm, the
  // row-block count) is not redone per round, and every round times the same choices.
  std::optional<Baselines> baselines;
  CudaBenchDevice bench_device(stream);
  std::vector<Row> rows;
  for (int round = 0; round < rounds; ++round) {
    const bool validating = cl.validate && round == 0;
    const BenchOptions share = round_share(point.counts, round, rounds);
    std::vector<Row> measured;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      Measurement m(rt, groups[g], operands, validating ? &*reference : nullptr, stream, share,
                    bench_device);
      std::vector<Row> group = measure_variants(m);
      if (cl.benchmark) group.push_back(measure_gemm_alone(m));
      for (Row& row : group) {
        row.group = static_cast<int>(g);
        measured.push_back(std::move(row));
      }
    }
    if (cl.baselines) {
      // Baselines do not depend on the tile configuration: measured once per round.
      if (!baselines) baselines.emplace(make_baselines(rt, cl.shape, stream));
      Measurement m(rt, cl, operands, validating ? &*reference : nullptr, stream, share,
                    bench_device);
      for (Row& row : measure_baselines(m, *baselines)) measured.push_back(std::move(row));
    }
    merge_round(rows, std::move(measured));
  }
  if (cl.trace_tiles) write_tile_traces(rt, groups.front(), operands, stream);
  return rows;
}

}  // namespace symm::examples::gemm_all_scatter
