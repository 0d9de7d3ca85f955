// `symm-bench gemm`: for each problem, check our output against cublasLt's, then time
// ours, cublasLt and ours on fewer SMs in turn (interleaved), `repeats` times each.
#include "gemm_bench.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "device_ops.hpp"
#include "symm/baselines/cublaslt_gemm.hpp"
#include "symm/common/error.hpp"
#include "symm/gemm/gemm.hpp"
#include "symm/host/bench.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/results.hpp"

namespace symm::bench {
namespace {

using nlohmann::json;

constexpr double kMaxRelError = 1e-2;  // ours vs cublasLt, both rounded to 16 bits

struct DeviceMatrix {
  explicit DeviceMatrix(std::size_t bytes) { check_cuda(cudaMalloc(&ptr, bytes), "cudaMalloc(operand)"); }
  ~DeviceMatrix() { warn_on_cuda_error(cudaFree(ptr), "cudaFree(operand)"); }
  DeviceMatrix(const DeviceMatrix&) = delete;
  DeviceMatrix& operator=(const DeviceMatrix&) = delete;
  void* ptr = nullptr;
};

// One timed implementation: a median per repeat.
struct Contender {
  std::string name;
  std::function<void()> fn;
  std::vector<double> medians_ms;
  BenchResult last;

  double median_ms() const {
    auto v = medians_ms;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
  double spread() const {  // (slowest - fastest repeat) / median
    const auto [lo, hi] = std::minmax_element(medians_ms.begin(), medians_ms.end());
    return (*hi - *lo) / median_ms();
  }
};

double tflops(const GemmShape& s, double ms) { return 2.0 * s.m * s.n * s.k / (ms * 1e9); }

std::uint64_t fresh_seed() {
  return std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
}

struct Measured {
  json row;
  double ratio = 0;                   // ours / cublasLt TFLOPS
  std::vector<double> fewer_ratios;   // ours on fewer SMs / cublasLt
  bool valid = false;
};

Measured measure(const GemmShape& s, gemm::DType dtype, const GemmBenchOptions& o,
                 BenchDevice& device, cudaStream_t stream, const gemm::DeviceLimits& limits) {
  const bool nk = o.layout == gemm::BLayout::nk;
  const std::size_t es = gemm::dtype_bytes(dtype);
  DeviceMatrix a(s.m * s.k * es), b(s.n * s.k * es), c(s.m * s.n * es), c_ref(s.m * s.n * es);
  const std::uint64_t seed = o.seed ? o.seed : fresh_seed();
  fill_uniform(a.ptr, s.m * s.k, dtype, seed, stream);
  fill_uniform(b.ptr, s.n * s.k, dtype, seed + 1, stream);
  const gemm::GemmProblem p{s.m, s.n, s.k, a.ptr, s.k, b.ptr, nk ? s.k : s.n, o.layout, c.ptr, s.n,
                            dtype, dtype};
  gemm::GemmProblem p_ref = p;
  p_ref.c = c_ref.ptr;

  // Both sides pick among their candidates by timing: cublasLt among its heuristic's,
  // ours among our heuristic's best few (unless --no-tune).
  gemm::Gemm ours(o.gemm);
  const gemm::Plan heuristic = ours.plan(p);
  const gemm::Plan plan = o.tune ? ours.tune(p, stream) : heuristic;
  const baselines::CublasLtGemm lt(p_ref, stream);

  // Correctness first: poisoned output, then ours against cublasLt.
  SYMM_CUDA_CHECK(cudaMemsetAsync(c.ptr, 0xFF, s.m * s.n * es, stream));
  ours.run(p, plan, stream);
  lt.run(p_ref.a, p_ref.b, p_ref.c, stream);
  const OutputCheck check = compare_outputs(c.ptr, c_ref.ptr, s.m, s.n, s.n, dtype, stream);
  Measured out;
  out.valid = check.nonfinite == 0 && check.rel_fro < kMaxRelError;

  std::vector<Contender> contenders;
  contenders.push_back({"ours", [&] { ours.run(p, plan, stream); }, {}, {}});
  contenders.push_back({"cublaslt", [&] { lt.run(p_ref.a, p_ref.b, p_ref.c, stream); }, {}, {}});
  std::vector<std::unique_ptr<gemm::Gemm>> fewer;
  std::vector<gemm::Plan> fewer_plans;
  for (int f : o.fewer_sms) {
    auto opts = o.gemm;
    opts.num_blocks = limits.sm_count - f;
    fewer.push_back(std::make_unique<gemm::Gemm>(opts));
    fewer_plans.push_back(o.tune ? fewer.back()->tune(p, stream) : fewer.back()->plan(p));
  }
  for (std::size_t i = 0; i < fewer.size(); ++i)
    contenders.push_back({fmt::format("ours_{}sms", limits.sm_count - o.fewer_sms[i]),
                          [&, i] { fewer[i]->run(p, fewer_plans[i], stream); }, {}, {}});

  BenchOptions bo;
  bo.n_warmup = o.warmup;
  bo.n_repeat = o.iters;
  for (int r = 0; r < o.repeats; ++r)
    for (auto& ct : contenders) {
      ct.last = do_bench(device, ct.fn, [] {}, [] {}, bo);
      ct.medians_ms.push_back(ct.last.median_ms);
    }

  out.ratio = contenders[1].median_ms() / contenders[0].median_ms();
  json impls = json::object();
  for (const auto& ct : contenders) {
    impls[ct.name] = {{"median_ms", ct.median_ms()}, {"tflops", tflops(s, ct.median_ms())},
                      {"repeat_medians_ms", ct.medians_ms}, {"spread", ct.spread()},
                      {"last_repeat", to_json(ct.last)}};
    if (ct.name.starts_with("ours_")) out.fewer_ratios.push_back(contenders[1].median_ms() / ct.median_ms());
  }
  impls["ours"]["config"] = gemm::to_string(plan.config);
  impls["ours"]["k_splits"] = plan.sched.k_splits;
  impls["ours"]["stream_k"] = plan.sched.stream_k();
  impls["ours"]["blocks"] = plan.num_blocks;
  impls["ours"]["kernel"] = plan.kind == gemm::KernelKind::wgmma ? "wgmma" : "fallback";
  impls["ours"]["plan"] = gemm::describe(p, plan);
  impls["ours"]["heuristic_plan"] = gemm::describe(p, heuristic);
  for (std::size_t i = 0; i < fewer_plans.size(); ++i)
    impls[contenders[2 + i].name]["plan"] = gemm::describe(p, fewer_plans[i]);
  impls["cublaslt"]["algo"] = lt.chosen();
  out.row = {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"world", s.world}, {"dtype", gemm::to_string(dtype)},
             {"layout", gemm::to_string(o.layout)}, {"seed", seed}, {"valid", out.valid},
             {"rel_error_vs_cublaslt", check.rel_fro}, {"nonfinite", check.nonfinite},
             {"ratio_ours_over_cublaslt", out.ratio}, {"impls", impls}};
  const std::string split = plan.sched.stream_k() ? "sk" : std::to_string(plan.sched.k_splits);
  fmt::print("{:>6} {:>6} {:>6} {:>2} {:>5} {:>14} {:>3} {:>8.1f} {:>8.1f} {:>6.3f} {:>6.3f}",
             s.m, s.n, s.k, s.world, gemm::to_string(dtype), gemm::to_string(plan.config), split,
             tflops(s, contenders[0].median_ms()),
             tflops(s, contenders[1].median_ms()), out.ratio,
             std::max(contenders[0].spread(), contenders[1].spread()));
  for (std::size_t i = 2; i < contenders.size(); ++i)
    fmt::print(" {:>8.1f}", tflops(s, contenders[i].median_ms()));
  fmt::print("{}\n", out.valid ? "" : fmt::format("  WRONG OUTPUT (rel {:.2e}, {} non-finite)",
                                                  check.rel_fro, check.nonfinite));
  std::fflush(stdout);
  return out;
}

double geomean(const std::vector<double>& v) {
  double log_sum = 0;
  for (double x : v) log_sum += std::log(x);
  return std::exp(log_sum / double(v.size()));
}

}  // namespace

int run_gemm_bench(const GemmBenchOptions& o, int argc, const char* const* argv) {
  cudaStream_t stream = nullptr;
  SYMM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int device_id = 0;
  SYMM_CUDA_CHECK(cudaGetDevice(&device_id));
  const auto limits = gemm::query_device_limits(device_id);
  for (int f : o.fewer_sms)
    if (f < 1 || f >= limits.sm_count)
      throw Error(fmt::format("fewer SMs: {} leaves no GPU of {} SMs; give 1 to {}", f, limits.sm_count,
                              limits.sm_count - 1));
  CudaBenchDevice device(stream);
  ResultsWriter results(collect_run_info(argc, argv, device_id));

  fmt::print("{:>6} {:>6} {:>6} {:>2} {:>5} {:>14} {:>3} {:>8} {:>8} {:>6} {:>6}", "M", "N", "K", "w",
             "dtype", "ours config", "spl", "ours TF", "cuBLAS", "ratio", "spread");
  for (int f : o.fewer_sms) fmt::print(" {:>8}", fmt::format("{}SM TF", limits.sm_count - f));
  fmt::print("\n");

  std::vector<double> ratios;
  std::vector<std::vector<double>> fewer_ratios(o.fewer_sms.size());
  bool all_valid = true;
  for (const auto& shape : o.shapes)
    for (auto dtype : o.dtypes) {
      Measured m = measure(shape, dtype, o, device, stream, limits);
      results.add_row(std::move(m.row));
      ratios.push_back(m.ratio);
      for (std::size_t i = 0; i < m.fewer_ratios.size(); ++i) fewer_ratios[i].push_back(m.fewer_ratios[i]);
      all_valid = all_valid && m.valid;
    }

  json summary = {{"summary", true}, {"problems", ratios.size()},
                  {"geomean_ours_over_cublaslt", geomean(ratios)},
                  {"min_ours_over_cublaslt", *std::min_element(ratios.begin(), ratios.end())},
                  {"all_outputs_valid", all_valid}};
  fmt::print("geomean ours/cuBLAS {:.3f}, min {:.3f} over {} problems{}\n", geomean(ratios),
             *std::min_element(ratios.begin(), ratios.end()), ratios.size(),
             all_valid ? "" : "; SOME OUTPUTS WRONG");
  for (std::size_t i = 0; i < o.fewer_sms.size(); ++i) {
    const int sms = limits.sm_count - o.fewer_sms[i];
    summary[fmt::format("geomean_ours_{}sms_over_cublaslt", sms)] = geomean(fewer_ratios[i]);
    fmt::print("geomean ours on {} SMs / cuBLAS on all: {:.3f}\n", sms, geomean(fewer_ratios[i]));
  }
  results.add_row(summary);
  if (!o.output.empty()) results.write(o.output);
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
  return all_valid ? 0 : 2;
}

}  // namespace symm::bench
