// Validation and timing of one contender, with the device's failure report printed when a
// synchronisation fails (a timed-out wait traps, and the record says which flag).
#include "measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "symm/host/cuda_check.hpp"
#include "symm/host/gather.hpp"
#include "symm/host/log.hpp"
#include "symm/host/tensor.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

// Runs fn; when it throws (a CUDA error surfacing at a synchronisation), prints what the
// device reported first, then lets the error end the rank.
void guarded(const std::function<void()>& fn, const FailureReportFn& report) {
  try {
    fn();
  } catch (const std::exception&) {
    if (report) {
      if (const std::string r = report(); !r.empty()) log::error(r);
    }
    throw;
  }
}

// One rank's verdict, gathered to all (plain data for Team::all_gather).
struct Verdict {
  baselines::Mismatch mismatch;
  int where = -1;  // -1: C; i >= 0: extra output i (loopback peer)
};

std::string describe_failure(const Verdict& v, std::int64_t n) {
  return baselines::describe(v.mismatch, n, v.where < 0 ? "C" : fmt::format("loopback peer {}'s C", v.where));
}

}  // namespace

Measurement::Measurement(Runtime& rt, const CommandLine& cl, const Operands& operands,
                         const Reference* reference, cudaStream_t stream, BenchOptions counts,
                         BenchDevice& device)
    : rt_(rt),
      cl_(cl),
      operands_(operands),
      reference_(reference),
      stream_(stream),
      counts_(std::move(counts)),
      device_(device) {}

baselines::Mismatch Measurement::check_outputs(const std::vector<void*>& extra_outputs, int& where) {
  const ops::AllScatterShape& s = cl_.shape;
  const baselines::Tolerance tol = baselines::output_tolerance(s.dtype, s.k);
  const float* ref = reference_->data();
  baselines::Mismatch total = baselines::count_wrong(operands_.c, s.dtype, ref, s.m * s.n, tol, stream_);
  where = -1;
  for (std::size_t i = 0; i < extra_outputs.size(); ++i) {
    const baselines::Mismatch m = baselines::count_wrong(extra_outputs[i], s.dtype, ref, s.m * s.n, tol, stream_);
    if (m.wrong > 0 && total.wrong == 0) {
      total = m;
      where = static_cast<int>(i);
    } else {
      total.wrong += m.wrong;
    }
  }
  return total;
}

bool Measurement::validate(const std::string& what, const RunFn& run, const FailureReportFn& report,
                           const std::vector<void*>& extra_outputs) {
  const std::size_t bytes = c_bytes(cl_.shape);
  detail::memset_on_device(operands_.c, 0xFF, bytes, stream_);  // NaN: unwritten cannot pass
  for (void* extra : extra_outputs) detail::memset_on_device(extra, 0xFF, bytes, stream_);
  rt_.barrier(stream_);  // no rank writes into a peer's C before that peer poisoned it
  guarded([&] {
    run();
    rt_.barrier(stream_);  // every rank's writes into this rank's C have landed
  }, report);
  Verdict mine;
  mine.mismatch = check_outputs(extra_outputs, mine.where);
  const std::vector<Verdict> all = gather(rt_.team(), mine);
  bool passed = true;
  for (int r = 0; r < rt_.world(); ++r) {
    if (all[r].mismatch.wrong == 0) continue;
    passed = false;
    if (rt_.rank() == 0)
      log::error(fmt::format("{}: validation FAILED on rank {}: {}", what, r,
                             describe_failure(all[r], cl_.shape.n)));
  }
  if (passed && rt_.rank() == 0) {
    const baselines::Tolerance tol = baselines::output_tolerance(cl_.shape.dtype, cl_.shape.k);
    const std::string checked = rt_.world() == 1 ? "C" : fmt::format("C of all {} ranks", rt_.world());
    // A sweep says one line per point (its progress); each contender's pass is a debug line.
    const auto say = cl_.preset.empty() ? log::info : log::debug;
    say(fmt::format("{}: validation passed ({}{}; rtol 2^{}, atol {:.3g})", what, checked,
                          extra_outputs.empty() ? "" : " and every loopback copy",
                          std::lround(std::log2(tol.rtol)), tol.atol));
  }
  return passed;
}

BenchOptions round_share(const BenchOptions& counts, int round, int rounds) {
  BenchOptions share = counts;
  share.n_repeat = counts.n_repeat / rounds + (round < counts.n_repeat % rounds ? 1 : 0);
  share.n_warmup = std::max(1, counts.n_warmup / rounds + (counts.n_warmup % rounds != 0));  // no overflow near INT_MAX
  return share;
}

CrossRankSummary combine(const CrossRankSummary& a, const CrossRankSummary& b) {
  std::vector<std::vector<double>> samples = a.samples_ms;
  for (std::size_t r = 0; r < samples.size(); ++r)
    samples[r].insert(samples[r].end(), b.samples_ms[r].begin(), b.samples_ms[r].end());
  return summarize_rank_samples(std::move(samples));
}

CrossRankSummary Measurement::time(const RunFn& run, const FailureReportFn& report) {
  BenchResult mine;
  guarded([&] {
    mine = do_bench(device_, run, [this] { rt_.barrier(stream_); }, [] {}, counts_);
    // A launch refused for its configuration sets the error without stopping anything:
    // one check after the timed calls (none inside, where it would add host time).
    check_cuda(cudaGetLastError(), "a launch in the timed function", "the figures are void");
  }, report);
  return summarize_across_ranks(rt_.team(), mine);
}

}  // namespace symm::examples::gemm_all_scatter
