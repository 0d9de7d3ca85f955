// The variants, gemm_alone and the baselines as rows (contenders.hpp).
#include "contenders.hpp"

#include <cstddef>
#include <string>

#include "symm/common/error.hpp"
#include "symm/gemm/gemm.hpp"
#include "symm/host/heap.hpp"

namespace symm::examples::gemm_all_scatter {

// Each variant's heap allocations (flags, loopback copies) are released by a HeapScope once
// it is destroyed: validate() and do_bench both end with rt.barrier, so no rank still uses
// that memory. The baselines' are released with the point's (point.cc).

std::vector<Row> measure_variants(Measurement& m) {
  const CommandLine& cl = m.command_line();
  const Operands& o = m.operands();
  std::vector<Row> rows;
  for (const RequestedVariant& requested : cl.variants) {
    ops::GemmAllScatterOptions options = cl.op;
    options.variant = requested;
    HeapScope heap_scope(m.runtime().heap());
    {
      ops::GemmAllScatter op(m.runtime(), cl.shape, options);
      const ops::AllScatterPlan& plan = op.plan();
      Row row;
      row.name = ops::to_string(plan.variant);
      row.requested = requested_name(requested);
      row.detail = ops::describe(cl.shape, plan);
      row.config = plan.config;
      row.gemm_sms = plan.gemm_sms;
      row.comm_sms = plan.comm_sms;
      row.gsize_m = plan.gsize_m;
      const std::string label = requested ? row.name : "auto (" + row.name + ")";
      const RunFn run = [&] { op.run(o.a, o.b_shard, o.c, m.stream()); };
      const FailureReportFn report = [&] { return op.failure_report(); };
      if (m.validating()) row.valid = m.validate(label, run, report, op.loopback_buffers());
      if (m.benchmarking()) row.time = m.time(run, report);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

Row measure_gemm_alone(Measurement& m) {
  const ops::AllScatterShape& s = m.command_line().shape;
  const Operands& o = m.operands();
  Runtime& rt = m.runtime();
  gemm::GemmOptions options = gemm::GemmOptions::from_env();
  if (m.command_line().op.config) options.config = m.command_line().op.config;
  options.gsize_m = m.command_line().op.gsize_m;
  options.split_tail = m.command_line().op.split_tail;
  gemm::Gemm gemm(options);
  const std::int64_t n_w = s.n / rt.world();
  auto* my_columns = static_cast<std::byte*>(o.c) + rt.rank() * n_w * gemm::dtype_bytes(s.dtype);
  const gemm::GemmProblem p{s.m,       n_w,  s.k, o.a, s.k, o.b_shard,
                            s.b_layout == gemm::BLayout::kn ? n_w : s.k,
                            s.b_layout, my_columns, s.n, s.dtype, s.dtype};
  const gemm::Plan plan = gemm.plan(p);
  Row row;
  row.name = kGemmAlone;
  row.detail = gemm::describe(p, plan);
  row.config = plan.config;
  row.gemm_sms = plan.num_blocks;
  row.gsize_m = plan.sched.gsize_m;
  row.time = m.time([&] { gemm.run(p, plan, m.stream()); }, {});
  return row;
}

Baselines make_baselines(Runtime& rt, const ops::AllScatterShape& shape, cudaStream_t stream) {
  Baselines b;
  b.built = baselines::make_all_scatter_baselines(rt, shape, stream, b.skipped);
  return b;
}

std::vector<Row> measure_baselines(Measurement& m, const Baselines& baselines) {
  const Operands& o = m.operands();
  std::vector<Row> rows;
  for (const auto& baseline : baselines.built) {
    Row row;
    row.name = baseline->name();
    row.detail = baseline->detail();
    const RunFn run = [&] { baseline->run(o.a, o.b_shard, o.c, m.stream()); };
    if (m.validating()) row.valid = m.validate(row.name, run, {});
    if (m.benchmarking()) row.time = m.time(run, {});
    rows.push_back(std::move(row));
  }
  for (const baselines::SkippedBaseline& s : baselines.skipped) {
    Row row;
    row.name = s.name;
    row.skipped = s.reason;
    rows.push_back(std::move(row));
  }
  return rows;
}

void merge_round(std::vector<Row>& rows, std::vector<Row> round) {
  if (rows.empty()) {
    rows = std::move(round);
    return;
  }
  if (round.size() != rows.size())
    throw Error("gemm_all_scatter: a timing round measured other contenders than the first");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].time && round[i].time) rows[i].time = combine(*rows[i].time, *round[i].time);
  }
}

}  // namespace symm::examples::gemm_all_scatter
