// symm-bench: benchmarks of symm's kernels against their baselines (one GPU per process).
//   symm-bench gemm --preset bench/gemm/issue4.json --output bench/results/gemm.json
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <exception>

#include "gemm_bench.hpp"

int main(int argc, char** argv) {
  CLI::App app{"symm-bench: symm kernels against their baselines"};
  app.require_subcommand(1);

  symm::bench::GemmBenchOptions gemm;
  std::string preset, dtype = "both", layout = "nk", config;
  std::vector<std::int64_t> mnk;
  auto* g = app.add_subcommand("gemm", "our GEMM vs cublasLt (TFLOPS, ratio, spread)");
  g->add_option("--preset", preset, "shape preset (bench/gemm/*.json)");
  g->add_option("--mnk", mnk, "one problem M N K instead of a preset")->expected(3)->check(CLI::PositiveNumber);
  g->add_option("--dtype", dtype, "bf16, fp16 or both")->check(CLI::IsMember({"bf16", "fp16", "both"}));
  g->add_option("--layout", layout, "B as N x K (nk) or K x N (kn)")->check(CLI::IsMember({"nk", "kn"}));
  g->add_option("--config", config, "force our configuration, e.g. 128x256x64s4");
  g->add_option("--fewer-sms", gemm.fewer_sms, "also time ours on SMs - s blocks")->check(CLI::PositiveNumber);
  g->add_option("--repeats", gemm.repeats, "interleaved repeats (spread across them)")->check(CLI::PositiveNumber);
  g->add_option("--warmup", gemm.warmup, "do_bench warm-up iterations")->check(CLI::NonNegativeNumber);
  g->add_option("--iters", gemm.iters, "do_bench timed iterations")->check(CLI::PositiveNumber);
  g->add_option("--seed", gemm.seed, "random seed (0: fresh)");
  g->add_option("--output", gemm.output, "results JSON path");
  bool no_tune = false;
  g->add_flag("--no-tune", no_tune, "ours: the heuristic's plan, untimed (default: fastest of its best few)");
  CLI11_PARSE(app, argc, argv);

  try {
    gemm.gemm = symm::gemm::GemmOptions::from_env();  // SYMM_GEMM_*: a bad value is reported here
    if (!preset.empty() && !mnk.empty())
      throw std::runtime_error("give --preset FILE or --mnk M N K, not both");
    if (!preset.empty()) {
      symm::bench::GemmPreset p = symm::bench::load_gemm_preset(preset);
      gemm.shapes = std::move(p.shapes);
      if (gemm.fewer_sms.empty()) gemm.fewer_sms = std::move(p.fewer_sms);
    }
    if (!mnk.empty()) gemm.shapes.push_back({mnk[0], mnk[1], mnk[2], 1});
    if (gemm.shapes.empty()) throw std::runtime_error("give --preset FILE (bench/gemm/*.json) or --mnk M N K");
    if (dtype != "both")
      gemm.dtypes = {dtype == "bf16" ? symm::gemm::DType::bf16 : symm::gemm::DType::fp16};
    gemm.layout = layout == "kn" ? symm::gemm::BLayout::kn : symm::gemm::BLayout::nk;
    if (!config.empty()) {
      symm::gemm::KernelConfig c;
      if (!symm::gemm::parse_config(config, c)) throw std::runtime_error("bad --config " + config);
      gemm.gemm.config = c;
    }
    gemm.tune = !no_tune && !gemm.gemm.config && !gemm.gemm.force_fallback;
    return symm::bench::run_gemm_bench(gemm, argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "symm-bench: {}\n", e.what());
    return 1;
  }
}
