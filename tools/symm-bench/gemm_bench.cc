// `symm-bench gemm`: for each problem, check every contender (ours, cublasLt, ours on
// fewer SMs) element-wise against an fp32 cuBLAS reference, then time those that passed
// in turn (interleaved), `repeats` times each. A contender that failed is not timed: its
// row says how many elements were wrong and where the first one is.
#include "gemm_bench.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "device_ops.hpp"
#include "timing_order.hpp"
#include "symm/baselines/cublaslt_gemm.hpp"
#include "symm/baselines/output_check.hpp"
#include "symm/baselines/reference_gemm.hpp"
#include "symm/common/error.hpp"
#include "symm/gemm/gemm.hpp"
#include "symm/host/bench.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/cuda_resources.hpp"
#include "symm/host/log.hpp"
#include "symm/host/options.hpp"
#include "symm/host/results.hpp"

namespace symm::bench {
namespace {

using nlohmann::json;

// One implementation: validated once, then timed (a median per repeat) if it passed.
struct Contender {
  std::string name;
  std::function<void()> fn;
  baselines::Mismatch mismatch;  // of its validation run
  std::vector<double> medians_ms;
  BenchResult last;

  bool valid() const { return mismatch.wrong == 0; }
  double median_ms() const { return repeat_median(medians_ms); }
  double spread() const {  // (slowest - fastest repeat) / median
    const auto [lo, hi] = std::minmax_element(medians_ms.begin(), medians_ms.end());
    return (*hi - *lo) / median_ms();
  }
};

double tflops(const GemmShape& s, double ms) { return 2.0 * s.m * s.n * s.k / (ms * 1e9); }

std::uint64_t fresh_seed() {
  return std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
}

// Prints which device wait of our kernels ran out of budget (Gemm::failure_report) when an
// error leaves measure(): a trap surfaces at a later synchronisation, not at its launch.
class WaitReportsOnError {
 public:
  WaitReportsOnError(const gemm::Gemm& ours, const std::vector<std::unique_ptr<gemm::Gemm>>& fewer)
      : ours_(ours), fewer_(fewer), exceptions_(std::uncaught_exceptions()) {}
  WaitReportsOnError(const WaitReportsOnError&) = delete;
  WaitReportsOnError& operator=(const WaitReportsOnError&) = delete;
  ~WaitReportsOnError() {
    if (!unwinding_since(exceptions_)) return;
    try {  // an error here, while another unwinds, would end the program unreported
      report(ours_);
      for (const auto& g : fewer_) report(*g);
    } catch (...) {
    }
  }

 private:
  static void report(const gemm::Gemm& g) {
    if (const std::string r = g.failure_report(); !r.empty()) log::error(r);
  }
  const gemm::Gemm& ours_;
  const std::vector<std::unique_ptr<gemm::Gemm>>& fewer_;
  int exceptions_;
};

struct Measured {
  json row;
  std::optional<double> ratio;                      // ours / cublasLt TFLOPS, when both passed
  std::optional<double> paired;                     // the median of the repeats' ratios, likewise
  std::vector<std::optional<double>> fewer_ratios;  // ours on fewer SMs / cublasLt, likewise
  bool valid = false;                               // every contender passed
};

// Poisons C with NaN (an unwritten element cannot pass), runs each contender once and
// records the elements of C outside the tolerance of the fp32 reference.
void validate(std::vector<Contender>& contenders, const gemm::GemmProblem& p, const float* ref,
              const baselines::Tolerance& tol, cudaStream_t stream) {
  const std::size_t bytes = std::size_t(p.m * p.n) * gemm::dtype_bytes(p.out_dtype);
  for (Contender& ct : contenders) {
    SYMM_CUDA_CHECK(cudaMemsetAsync(p.c, 0xFF, bytes, stream));
    ct.fn();
    ct.mismatch = baselines::count_wrong(p.c, p.out_dtype, ref, p.m * p.n, tol, stream);
  }
}

json validation_json(const Contender& ct, std::int64_t cols) {
  if (ct.valid()) return {{"valid", true}};
  const baselines::Mismatch& m = ct.mismatch;
  return {{"valid", false}, {"not_timed", "wrong output: " + baselines::describe(m, cols, "C")},
          {"wrong_elements", m.wrong},
          {"first_wrong", {{"row", m.first / cols}, {"col", m.first % cols}, {"got", m.got},
                           {"want", m.expected}}}};
}

std::string tflops_cell(const GemmShape& s, const Contender& ct) {
  return ct.valid() ? fmt::format("{:>8.1f}", tflops(s, ct.median_ms())) : fmt::format("{:>8}", "WRONG");
}

// The table row of one problem, then a line per contender that was not timed, saying why.
void print_row(const GemmShape& s, gemm::DType dtype, const gemm::Plan& plan, const std::string& lt_config,
               const std::vector<Contender>& contenders, std::optional<double> ratio,
               const baselines::Tolerance& tol) {
  // "sk": stream-K; "t3": the last wave's tiles split 3 ways (the others whole).
  const std::string split = plan.sched.stream_k()    ? "sk"
                            : plan.sched.dp_tiles > 0 ? fmt::format("t{}", plan.sched.k_splits)
                                                      : std::to_string(plan.sched.k_splits);
  std::optional<double> spread;  // of ours and cublasLt, where timed
  for (const Contender* ct : {&contenders[0], &contenders[1]})
    if (ct->valid()) spread = std::max(spread.value_or(0.0), ct->spread());
  fmt::print("{:>6} {:>6} {:>6} {:>2} {:>5} {:>14} {:>3} {} {} {:>6} {:>6} {:>16}", s.m, s.n, s.k, s.world,
             gemm::to_string(dtype), gemm::to_string(plan.config), split, tflops_cell(s, contenders[0]),
             tflops_cell(s, contenders[1]), ratio ? fmt::format("{:.3f}", *ratio) : "-",
             spread ? fmt::format("{:.3f}", *spread) : "-", lt_config);
  for (std::size_t i = 2; i < contenders.size(); ++i) fmt::print(" {}", tflops_cell(s, contenders[i]));
  fmt::print("\n");
  for (const auto& ct : contenders)
    if (!ct.valid())
      fmt::print("  {} not timed, WRONG OUTPUT: {} (rtol 2^{}, atol {:.3g})\n", ct.name,
                 baselines::describe(ct.mismatch, s.n, "C"), std::lround(std::log2(tol.rtol)), tol.atol);
}

// `problem`: the problem's place in the run, which sets the contenders' order (below).
Measured measure(const GemmShape& s, gemm::DType dtype, const GemmBenchOptions& o, BenchDevice& device,
                 cudaStream_t stream, const gemm::DeviceLimits& limits, int problem) {
  const bool nk = o.layout == gemm::BLayout::nk;
  const std::size_t es = gemm::dtype_bytes(dtype);
  const DeviceBuffer a(s.m * s.k * es, "A"), b(s.n * s.k * es, "B"), c(s.m * s.n * es, "C"),
      ref(s.m * s.n * sizeof(float), "reference C");
  const std::uint64_t seed = o.seed ? o.seed : fresh_seed();
  fill_uniform(a.get(), s.m * s.k, dtype, seed, stream);
  fill_uniform(b.get(), s.n * s.k, dtype, seed + 1, stream);
  const gemm::GemmProblem p{s.m, s.n, s.k, a.get(), s.k, b.get(), nk ? s.k : s.n, o.layout, c.get(), s.n,
                            dtype, dtype};
  gemm::GemmProblem p_ref = p;
  p_ref.c = ref.get();
  p_ref.out_dtype = gemm::DType::fp32;
  baselines::ReferenceGemm().run(p_ref, stream);

  // Both sides pick among their candidates by timing: cublasLt among its heuristic's,
  // ours among our heuristic's best few (unless --no-tune).
  gemm::Gemm ours(o.gemm);
  std::vector<std::unique_ptr<gemm::Gemm>> fewer;
  const WaitReportsOnError wait_reports(ours, fewer);
  const gemm::Plan heuristic = ours.plan(p);
  const gemm::Plan plan = o.tune ? ours.tune(p, stream) : heuristic;
  const baselines::Tolerance tol = baselines::output_tolerance(dtype, s.k);
  // cuBLASLt's fastest candidate among those whose C passes the check ours must pass.
  const baselines::CublasLtGemm lt(p, stream, [&] {
    return baselines::count_wrong(p.c, p.out_dtype, static_cast<const float*>(ref.get()), p.m * p.n, tol, stream)
               .wrong == 0;
  });

  std::vector<Contender> contenders;
  contenders.push_back({"ours", [&] { ours.run(p, plan, stream); }, {}, {}, {}});
  contenders.push_back({"cublaslt", [&] { lt.run(p.a, p.b, p.c, stream); }, {}, {}, {}});
  std::vector<gemm::Plan> fewer_plans;
  for (int f : o.fewer_sms) {
    auto opts = o.gemm;
    opts.num_blocks = limits.sm_count - f;
    fewer.push_back(std::make_unique<gemm::Gemm>(opts));
    fewer_plans.push_back(o.tune ? fewer.back()->tune(p, stream) : fewer.back()->plan(p));
  }
  for (std::size_t i = 0; i < fewer.size(); ++i)
    contenders.push_back({fmt::format("ours_{}sms", limits.sm_count - o.fewer_sms[i]),
                          [&, i] { fewer[i]->run(p, fewer_plans[i], stream); }, {}, {}, {}});

  validate(contenders, p, static_cast<const float*>(ref.get()), tol, stream);

  BenchOptions bo;
  bo.n_warmup = o.warmup;
  bo.n_repeat = o.iters;
  // No contender runs first more often over a preset (timing_order.hpp).
  json first_by_repeat = json::array();
  for (int r = 0; r < o.repeats; ++r)
    for (std::size_t i : timing_order(r, problem, contenders.size())) {
      Contender& ct = contenders[i];
      if (!ct.valid()) continue;
      if (first_by_repeat.size() == std::size_t(r)) first_by_repeat.push_back(ct.name);
      ct.last = do_bench(device, ct.fn, [] {}, [] {}, bo);
      ct.medians_ms.push_back(ct.last.median_ms);
    }

  Measured out;
  out.valid = std::all_of(contenders.begin(), contenders.end(), [](const Contender& ct) { return ct.valid(); });
  const Contender& lt_ct = contenders[1];
  const auto over_lt = [&](const Contender& ct) -> std::optional<double> {
    if (!ct.valid() || !lt_ct.valid()) return std::nullopt;
    return lt_ct.median_ms() / ct.median_ms();
  };
  out.ratio = over_lt(contenders[0]);
  // The same from each repeat's pair: steadier where the clock drifts between repeats.
  if (out.ratio) out.paired = paired_ratio(lt_ct.medians_ms, contenders[0].medians_ms);
  json impls = json::object();
  for (const auto& ct : contenders) {
    impls[ct.name] = validation_json(ct, s.n);
    if (ct.valid())
      impls[ct.name].update({{"median_ms", ct.median_ms()}, {"tflops", tflops(s, ct.median_ms())},
                             {"repeat_medians_ms", ct.medians_ms}, {"spread", ct.spread()},
                             {"last_repeat", to_json(ct.last)}});
    if (ct.name.starts_with("ours_")) out.fewer_ratios.push_back(over_lt(ct));
  }
  impls["ours"]["config"] = gemm::to_string(plan.config);
  impls["ours"]["k_splits"] = plan.sched.k_splits;
  impls["ours"]["stream_k"] = plan.sched.stream_k();
  impls["ours"]["whole_tiles"] = plan.sched.dp_tiles;  // tiles before the split or stream-K ones
  impls["ours"]["blocks"] = plan.num_blocks;
  impls["ours"]["kernel"] = plan.kind == gemm::KernelKind::wgmma ? "wgmma" : "fallback";
  impls["ours"]["plan"] = gemm::describe(p, plan);
  impls["ours"]["heuristic_plan"] = gemm::describe(p, heuristic);
  for (std::size_t i = 0; i < fewer_plans.size(); ++i)
    impls[contenders[2 + i].name]["plan"] = gemm::describe(p, fewer_plans[i]);
  impls["cublaslt"]["algo"] = lt.chosen();
  const baselines::CublasLtConfig& lt_config = lt.chosen_config();
  impls["cublaslt"]["config"] = lt_config.name();
  impls["cublaslt"]["algo_config"] = {{"algo_id", lt_config.algo_id},     {"tile", lt_config.tile},
                                      {"stages", lt_config.stages},       {"cluster", lt_config.cluster},
                                      {"k_splits", lt_config.k_splits},   {"reduction", lt_config.reduction},
                                      {"swizzle", lt_config.swizzle},     {"custom_option", lt_config.custom_option}};
  out.row = {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"world", s.world}, {"dtype", gemm::to_string(dtype)},
             {"layout", gemm::to_string(o.layout)}, {"seed", seed}, {"valid", out.valid},
             {"tolerance", {{"rtol", tol.rtol}, {"atol", tol.atol}}},
             {"ratio_ours_over_cublaslt", out.ratio ? json(*out.ratio) : json(nullptr)},
             {"ratio_paired", out.paired ? json(*out.paired) : json(nullptr)}, {"first_by_repeat", first_by_repeat},
             {"impls", impls}};

  print_row(s, dtype, plan, lt_config.name(), contenders, out.ratio, tol);
  std::fflush(stdout);
  return out;
}

// Empty when the problem fits in the GPU's free memory now; else both figures.
std::string memory_problem(const GemmShape& s, gemm::DType dtype) {
  std::size_t free = 0, total = 0;
  SYMM_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  const std::uint64_t needed = device_bytes_needed(s, int(gemm::dtype_bytes(dtype)));
  if (needed <= free) return {};
  return fmt::format("needs about {} of GPU memory, {} of {} free: give a smaller problem", format_bytes(needed),
                     format_bytes(free), format_bytes(total));
}

// Of the ratios present; none when there are none.
std::optional<double> geomean(const std::vector<std::optional<double>>& v) {
  double log_sum = 0;
  int n = 0;
  for (const auto& x : v)
    if (x) log_sum += std::log(*x), ++n;
  if (n == 0) return std::nullopt;
  return std::exp(log_sum / n);
}

// The smallest of the ratios present; none when there are none.
std::optional<double> lowest_of(const std::vector<std::optional<double>>& v) {
  std::optional<double> lowest;
  for (const auto& x : v)
    if (x && (!lowest || *x < *lowest)) lowest = x;
  return lowest;
}

}  // namespace

int run_gemm_bench(const GemmBenchOptions& o, int argc, const char* const* argv) {
  const OwnedStream owned_stream;
  const cudaStream_t stream = owned_stream.get();
  int device_id = 0;
  SYMM_CUDA_CHECK(cudaGetDevice(&device_id));
  const auto limits = gemm::query_device_limits(device_id);
  for (int f : o.fewer_sms)
    if (f < 1 || f >= limits.sm_count)
      throw Error(fmt::format("fewer SMs: {} leaves no GPU of {} SMs; give 1 to {}", f, limits.sm_count,
                              limits.sm_count - 1));
  CudaBenchDevice device(stream);
  ResultsWriter results(collect_run_info(argc, argv, device_id));

  fmt::print("{:>6} {:>6} {:>6} {:>2} {:>5} {:>14} {:>3} {:>8} {:>8} {:>6} {:>6} {:>16}", "M", "N", "K", "w",
             "dtype", "ours config", "spl", "ours TF", "cuBLAS", "ratio", "spread", "cuBLAS config");
  for (int f : o.fewer_sms) fmt::print(" {:>8}", fmt::format("{}SM TF", limits.sm_count - f));
  fmt::print("\n");

  std::vector<std::optional<double>> ratios, paired;
  std::vector<std::vector<std::optional<double>>> fewer_ratios(o.fewer_sms.size());
  bool all_valid = true;
  int problem = 0, skipped = 0;
  for (const auto& shape : o.shapes)
    for (auto dtype : o.dtypes) {
      // A problem the GPU cannot hold is said and recorded, not a failed allocation that
      // would end the run and lose the problems measured before it.
      if (const std::string why = memory_problem(shape, dtype); !why.empty()) {
        fmt::print("{:>6} {:>6} {:>6} {:>2} {:>5} skipped: {}\n", shape.m, shape.n, shape.k, shape.world,
                   gemm::to_string(dtype), why);
        results.add_row({{"m", shape.m}, {"n", shape.n}, {"k", shape.k}, {"world", shape.world},
                         {"dtype", gemm::to_string(dtype)}, {"layout", gemm::to_string(o.layout)}, {"skipped", why}});
        ++skipped;
        continue;
      }
      Measured m = measure(shape, dtype, o, device, stream, limits, problem++);
      results.add_row(std::move(m.row));
      if (!o.output.empty()) results.write(o.output);  // what is measured stays if a later problem fails
      ratios.push_back(m.ratio);
      paired.push_back(m.paired);
      for (std::size_t i = 0; i < m.fewer_ratios.size(); ++i) fewer_ratios[i].push_back(m.fewer_ratios[i]);
      all_valid = all_valid && m.valid;
    }

  // Geomeans over the problems where both sides passed; a wrong output leaves its problem out.
  const auto timed = std::count_if(ratios.begin(), ratios.end(), [](const auto& r) { return r.has_value(); });
  json summary = {{"summary", true}, {"problems", ratios.size()}, {"problems_compared", timed},
                  {"all_outputs_valid", all_valid}};
  if (const auto g = geomean(ratios)) {
    const double lowest = *lowest_of(ratios);
    summary["geomean_ours_over_cublaslt"] = *g;
    summary["min_ours_over_cublaslt"] = lowest;
    fmt::print("geomean ours/cuBLAS {:.3f}, min {:.3f} over {} of {} problems{}\n", *g, lowest, timed,
               ratios.size(), all_valid ? "" : "; SOME OUTPUTS WRONG (not timed, above)");
    // Paired (each repeat's two times back to back): what drift between repeats cannot skew.
    const double paired_geomean = *geomean(paired), paired_lowest = *lowest_of(paired);
    summary["geomean_paired"] = paired_geomean;
    summary["min_paired"] = paired_lowest;
    fmt::print("paired (per-repeat ratios' median): geomean {:.3f}, min {:.3f}\n", paired_geomean, paired_lowest);
  } else {
    fmt::print("no problem had both ours and cuBLAS right: nothing compared; SOME OUTPUTS WRONG (above)\n");
  }
  for (std::size_t i = 0; i < o.fewer_sms.size(); ++i) {
    const int sms = limits.sm_count - o.fewer_sms[i];
    if (const auto g = geomean(fewer_ratios[i])) {
      summary[fmt::format("geomean_ours_{}sms_over_cublaslt", sms)] = *g;
      fmt::print("geomean ours on {} SMs / cuBLAS on all: {:.3f}\n", sms, *g);
    }
  }
  if (skipped > 0) {
    summary["problems_skipped"] = skipped;
    fmt::print("{} problem{} not measured: too large for this GPU's free memory (above)\n", skipped,
               skipped == 1 ? "" : "s");
  }
  results.add_row(summary);
  if (!o.output.empty()) results.write(o.output);
  // A wrong output or a problem left unmeasured is a failed run (2 is main's for bad input).
  return all_valid && skipped == 0 ? 0 : 1;
}

}  // namespace symm::bench
