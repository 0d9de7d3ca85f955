// symm-bench: benchmarks of symm's kernels against their baselines (one GPU per process).
//   symm-bench gemm --preset bench/gemm/issue4.json -o bench/results/gemm.json
//   symm-bench gemm --mnk 777 4104 8200 --plans   (what ours would run; no GPU needed)
// Exit codes: 0 done, 1 a failed run (a wrong output, an error while running, no GPU), 2 a
// bad command line, preset or SYMM_* variable (one line naming it, before any GPU work). Flags follow Iris's names
// (--n_warmup, --n_repeat, -o/--output_file, --datatype); the earlier spellings (--warmup,
// --iters, --output, --dtype, --layout, --fewer-sms, --no-tune) stay as aliases.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <exception>

#include "gemm_bench.hpp"
#include "plan_listing.hpp"
#include "symm/gemm/config.hpp"
#include "symm/host/input_checks.hpp"
#include "symm/host/launch.hpp"
#include "symm/host/options.hpp"
#include "symm/host/results.hpp"
#include "symm/host/settings.hpp"

namespace {

// `symm-bench gemm`'s flags as given, before they become GemmBenchOptions.
struct GemmFlags {
  std::string preset, dtype = "both", layout = "nk", config;
  std::vector<std::int64_t> mnk;
  bool no_tune = false;
  bool plans = false;  // print what ours would run, run nothing
};

// With SYMM_GEMM_FORCE_FALLBACK=1 the mma.sync fallback runs: --config must name one of its
// configurations, and one that reads B in the layout given.
std::string check_fallback_config(const std::string& text, bool parsed, symm::gemm::BLayout layout,
                                  const symm::gemm::KernelConfig& config) {
  using symm::gemm::to_string;
  const symm::gemm::KernelConfig wide = symm::gemm::FallbackConfig::desc;
  const symm::gemm::KernelConfig narrow = symm::gemm::FallbackNarrowConfig::desc;
  if (!parsed || (config != wide && config != narrow))
    return fmt::format("--config {}: SYMM_GEMM_FORCE_FALLBACK=1 runs the mma.sync fallback, whose configurations "
                       "are {} (B either way) and {} (B as N x K); give one of these, or unset "
                       "SYMM_GEMM_FORCE_FALLBACK for the WGMMA ones",
                       text, to_string(wide), to_string(narrow));
  if (!symm::gemm::fallback_takes(config, layout))
    return fmt::format("--config {}: the fallback's {} reads B as N x K only; give --b_layout nk, or --config {}",
                       text, to_string(config), to_string(wide));
  return {};
}

// --config must name a configuration of the kernel that will run (the plan refuses others
// later, on the GPU): a built WGMMA one, or with the fallback forced, one of the fallback's.
std::string check_config(const std::string& text, const symm::gemm::GemmOptions& options,
                         symm::gemm::BLayout layout, symm::gemm::KernelConfig& out) {
  const bool parsed = symm::gemm::parse_config(text, out);
  if (options.force_fallback) return check_fallback_config(text, parsed, layout, out);
  if (parsed && symm::gemm::is_built(out)) return {};
  return fmt::format("--config {}: no such configuration is built (BLK_MxBLK_NxBLK_K s stages "
                     "[cCLUSTER] [-pingpong|-swapped]); built: {}",
                     text, symm::gemm::config_names(symm::gemm::kWgmmaConfigs));
}

// Each --fewer_sms value once: a repeat would be timed twice under one name.
std::string check_repeats(const std::vector<int>& fewer_sms) {
  for (std::size_t i = 0; i < fewer_sms.size(); ++i)
    if (std::find(fewer_sms.begin(), fewer_sms.begin() + i, fewer_sms[i]) != fewer_sms.begin() + i)
      return fmt::format("--fewer_sms {} is given twice; give each value once", fewer_sms[i]);
  return {};
}

// The numbers' ranges and the output path, named flag by flag.
std::string check_numbers(const GemmFlags& flags, const symm::bench::GemmBenchOptions& gemm) {
  for (std::string why : {symm::check_at_least("--repeats", gemm.repeats, 1),
                          symm::check_at_least("--n_warmup", gemm.warmup, 0),
                          symm::check_at_least("--n_repeat", gemm.iters, 1),
                          symm::check_output_file("-o/--output_file", gemm.output),
                          symm::check_not_a_sweep_file("-o/--output_file", gemm.output),
                          check_repeats(gemm.fewer_sms)}) {
    if (!why.empty()) return why;
  }
  // The GEMM's extents are 32-bit, as a preset's are (gemm_preset.cc).
  for (std::size_t i = 0; i < flags.mnk.size(); ++i) {
    const std::string dim = fmt::format("--mnk {}", "MNK"[i]);
    if (std::string why = symm::check_between(dim, flags.mnk[i], 1, symm::gemm::kMaxExtent);
        !why.empty())
      return why;
  }
  for (int s : gemm.fewer_sms) {
    if (std::string why = symm::check_at_least("--fewer_sms", s, 1); !why.empty()) return why;
  }
  return {};
}

// Turns the flags, the preset and the SYMM_* variables into `gemm`; returns what is wrong
// with the flags or variables, or empty; a bad preset throws, its message naming it.
std::string read_gemm_flags(const GemmFlags& flags, symm::bench::GemmBenchOptions& gemm) {
  if (std::string why = check_numbers(flags, gemm); !why.empty()) return why;
  // No symm::launch here to check them (one process, one GPU): the same check, by hand.
  if (std::string why = symm::settings::check_all(); !why.empty()) return why;
  if (!flags.preset.empty() && !flags.mnk.empty()) return "give --preset FILE or --mnk M N K, not both";
  if (flags.plans && !gemm.output.empty())
    return "--plans prints plans and times nothing, so -o/--output_file would stay empty: drop one of them";
  if (!gemm.plans_for.empty() && !flags.plans)
    return "--plans_for names the GPU whose limits --plans plans for, and nothing is planned without --plans: "
           "add --plans or drop --plans_for";
  gemm.gemm = symm::gemm::GemmOptions::from_env();
  if (!flags.preset.empty()) {
    symm::bench::GemmPreset p = symm::bench::load_gemm_preset(flags.preset);
    gemm.shapes = std::move(p.shapes);
    if (gemm.fewer_sms.empty()) gemm.fewer_sms = std::move(p.fewer_sms);
  }
  if (!flags.mnk.empty()) gemm.shapes.push_back({flags.mnk[0], flags.mnk[1], flags.mnk[2], 1});
  if (gemm.shapes.empty()) return "give --preset FILE (bench/gemm/*.json) or --mnk M N K";
  if (flags.dtype != "both")
    gemm.dtypes = {flags.dtype == "bf16" ? symm::gemm::DType::bf16 : symm::gemm::DType::fp16};
  gemm.layout = flags.layout == "kn" ? symm::gemm::BLayout::kn : symm::gemm::BLayout::nk;
  if (!flags.config.empty()) {
    symm::gemm::KernelConfig c;
    if (std::string why = check_config(flags.config, gemm.gemm, gemm.layout, c); !why.empty()) return why;
    gemm.gemm.config = c;
  }
  gemm.tune = !flags.no_tune && !gemm.gemm.config && !gemm.gemm.force_fallback;
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"symm-bench: symm kernels against their baselines"};
  app.require_subcommand(1);

  symm::bench::GemmBenchOptions gemm;
  GemmFlags flags;
  auto* g = app.add_subcommand("gemm", "our GEMM vs cublasLt (TFLOPS, ratio, spread)");
  g->option_defaults()->always_capture_default();  // --help shows the defaults below
  g->add_option("--preset", flags.preset, "shape preset (bench/gemm/*.json)");
  g->add_option("--mnk", flags.mnk, "one problem M N K (each >= 1) instead of a preset")->expected(3);
  g->add_option("--datatype,--dtype", flags.dtype, "bf16, fp16 or both")
      ->check(CLI::IsMember({"bf16", "fp16", "both"}));
  g->add_option("--b_layout,--layout", flags.layout, "B as N x K (nk) or K x N (kn)")
      ->check(CLI::IsMember({"nk", "kn"}));
  g->add_option("--config", flags.config, "force our configuration, e.g. 128x256x64s4");
  g->add_option("--fewer_sms,--fewer-sms", gemm.fewer_sms, "also time ours on SMs - s blocks (each s >= 1)");
  g->add_option("--repeats", gemm.repeats, "interleaved repeats (spread across them; >= 1)");
  g->add_option("--n_warmup,--warmup", gemm.warmup, "do_bench warm-up iterations (>= 0)");
  g->add_option("--n_repeat,--iters", gemm.iters, "do_bench timed iterations (>= 1)");
  g->add_option("--seed", gemm.seed, "random seed (0: fresh)");
  g->add_option("-o,--output_file,--output", gemm.output, "results JSON path (empty: none)");
  g->add_flag("--no_tune,--no-tune", flags.no_tune,
              "ours: the heuristic's plan, untimed (default: fastest of its best few)");
  g->add_flag("--plans", flags.plans,
              "print our plan and the candidates tuning would time, with the heuristic's predicted times; "
              "run nothing (no GPU needed)");
  g->add_option("--plans_for,--plans-for", gemm.plans_for,
                "with --plans: plan for an H100's or H200's limits, not the visible GPU's (none visible: an H200's)")
      ->check(CLI::IsMember({"h100", "h200"}));
  if (const int code = symm::parse_command_line(app, argc, argv); code >= 0) return code;
  try {
    if (const std::string why = read_gemm_flags(flags, gemm); !why.empty()) {
      fmt::print(stderr, "symm-bench gemm: {}\n", why);
      return 2;
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
  // Said as the examples say it, before CUDA would ("driver version is insufficient");
  // --plans needs no GPU.
  if (const std::string why = flags.plans ? "" : symm::no_gpu_message(); !why.empty()) {
    fmt::print(stderr, "symm-bench: {}\n", why);
    return 1;
  }
  try {
    if (flags.plans) return symm::bench::print_plans(gemm);
    return symm::bench::run_gemm_bench(gemm, argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "symm-bench: {}\n", e.what());
    return 1;
  }
}
