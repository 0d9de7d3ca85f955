// Parsing (CLI11) and the checks of the GEMM + all-scatter command line.
#include "command_line.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <limits>

#include "sweep_file.hpp"
#include "sweep_preset.hpp"
#include "symm/common/error.hpp"
#include "symm/gemm/plan.hpp"
#include "symm/host/input_checks.hpp"
#include "symm/host/log.hpp"
#include "symm/host/options.hpp"
#include "symm/host/results.hpp"
#include "symm/host/settings.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

// A flag that sets what a sweep's preset defines for every point, and the preset key that
// sets it there (null: none; the flag is for single points only).
struct PointFlag {
  const CLI::Option* option;
  const char* preset_key;
};

// --BLK_M --BLK_N --BLK_K --num_stages as given (0: not given).
struct TileFlags {
  int blk_m = 0, blk_n = 0, blk_k = 0, stages = 0;
  bool any() const { return blk_m || blk_n || blk_k || stages; }
  std::string text() const {
    std::string t;
    const auto add = [&](const char* flag, int v) {
      if (v) t += fmt::format("{}{} {}", t.empty() ? "" : " ", flag, v);
    };
    add("--BLK_M", blk_m);
    add("--BLK_N", blk_n);
    add("--BLK_K", blk_k);
    add("--num_stages", stages);
    return t;
  }
};

// The configurations Iris's tile flags name: cooperative tiles of one block. Ping-pong
// and swapped tiles and clusters (which the plan may choose for tma_push) would make the
// same four numbers name two kernels.
bool named_by_tile_flags(const gemm::KernelConfig& c) {
  return c.schedule == gemm::Schedule::cooperative && !c.clustered();
}

// The built WGMMA configuration the given fields name.
std::string resolve_tile(const TileFlags& flags, std::optional<gemm::KernelConfig>& out) {
  if (!flags.any()) return {};
  std::vector<gemm::KernelConfig> matching;
  for (const gemm::KernelConfig& c : gemm::kWgmmaConfigs) {
    if (named_by_tile_flags(c) && (!flags.blk_m || c.blk_m == flags.blk_m) &&
        (!flags.blk_n || c.blk_n == flags.blk_n) && (!flags.blk_k || c.blk_k == flags.blk_k) &&
        (!flags.stages || c.stages == flags.stages))
      matching.push_back(c);
  }
  if (matching.empty())
    return fmt::format("{}: no such tile configuration is built; built (BLK_MxBLK_NxBLK_K s "
                       "num_stages): {}",
                       flags.text(), built_tile_names());
  if (matching.size() > 1)
    return fmt::format("{} matches several built configurations ({}); add the missing flags of "
                       "--BLK_M --BLK_N --BLK_K --num_stages",
                       flags.text(), gemm::config_names(matching));
  out = matching.front();
  return {};
}

// The tile of the run: --config by name (any built configuration: ping-pong, swapped and
// clustered tiles too, which tma_push runs and Iris's tile flags cannot name; the plan
// refuses those a variant does not run), or the tile flags.
std::string resolve_config(const std::string& name, const TileFlags& tile, std::optional<gemm::KernelConfig>& out) {
  if (name.empty()) return resolve_tile(tile, out);
  if (tile.any()) return fmt::format("--config {} and {} both name the tile: give one of them", name, tile.text());
  gemm::KernelConfig c;
  if (std::string why = built_config_named(name, c); !why.empty()) return "--config " + why;
  out = c;
  return {};
}

// The numeric flags' ranges, checked one by one so the message names the flag.
std::string check_bounds(const CommandLine& cl, const TileFlags& tile) {
  constexpr std::int64_t kNone = -1;  // no upper bound
  struct Bound {
    const char* flag;
    std::int64_t value, min, max;
  };
  const Bound bounds[] = {
      {"-m", cl.shape.m, 1, gemm::kMaxExtent}, {"-n", cl.shape.n, 1, gemm::kMaxExtent},
      {"-k", cl.shape.k, 1, gemm::kMaxExtent}, {"--gsize_m", cl.op.gsize_m, 1, kNone},
      {"--gemm_sms", cl.op.gemm_sms, 0, kNone}, {"--num_sms", cl.op.num_sms, 0, kNone},
      {"--comm_sms", cl.op.comm_sms, 0, kNone}, {"--loopback_peers", cl.op.loopback_peers, 0, kNone},
      {"--split_tail", cl.op.split_tail, -1, 1},
      {"--n_warmup", cl.n_warmup, 0, kNone},  {"--n_repeat", cl.n_repeat, 1, kNone},
      {"--BLK_M", tile.blk_m, 0, kNone},      {"--BLK_N", tile.blk_n, 0, kNone},
      {"--BLK_K", tile.blk_k, 0, kNone},      {"--num_stages", tile.stages, 0, kNone}};
  for (const Bound& b : bounds) {
    std::string why = b.max == kNone ? check_at_least(b.flag, b.value, b.min)
                                     : check_between(b.flag, b.value, b.min, b.max);
    if (!why.empty()) return why;
  }
  return {};
}

// With --preset the preset defines the points: the flags that would too are refused, the
// preset and the sweep file are read (so that a bad one fails before anything is written
// or any rank starts), and -o defaults to sweep-<preset name>.jsonl.
std::string check_sweep_flags(const std::vector<PointFlag>& point_flags, bool output_given, CommandLine& cl) {
  for (const PointFlag& flag : point_flags) {
    if (flag.option->count() == 0) continue;
    const std::string instead =
        flag.preset_key ? fmt::format("the preset's \"{}\" sets it", flag.preset_key)
                        : "no preset key sets it; it is for single points given by -m -n -k";
    return fmt::format("--preset {} defines the points: drop {} ({})", cl.preset, flag.option->get_name(), instead);
  }
  if (!output_given)
    cl.output_file = "sweep-" + std::filesystem::path(cl.preset).stem().string() + ".jsonl";
  if (cl.output_file.empty()) return "a sweep appends each point to its results file: give -o FILE";
  try {
    const SweepPreset preset = load_preset(cl.preset);
    const int r = cl.launch.num_ranks;
    if (r > 0 && std::find(preset.ranks.begin(), preset.ranks.end(), r) == preset.ranks.end())
      return fmt::format("-r {}: the preset {} runs {} ranks; give one of these, or no -r", r,
                         cl.preset, fmt::join(preset.ranks, ", "));
    return sweep_file_problem(cl.output_file, cl.preset, preset.source, sweep_settings(cl));
  } catch (const Error& e) {
    return e.what();
  }
}

// Every SYMM_* variable, before anything is written or launched (symm::launch checks
// them again, but a sweep creates its results file first); the SYMM_GEMM_* ones steer the
// baselines' and bulk_synchronous's GEMM inside the ranks.
std::string check_settings() {
  if (std::string problems = settings::check_all(); !problems.empty()) return problems;
  try {
    gemm::GemmOptions::from_env();
    return {};
  } catch (const Error& e) {
    return e.what();
  }
}

// A, the B shard, C, and the C-sized buffers one contender at a time holds besides C (a
// variant its loopback copies, the baselines a C for their tuning runs). Saturates: extents
// up to 2^31 can ask for more than 64 bits of bytes.
std::uint64_t matrix_bytes(const CommandLine& cl, int world) {
  using Wide = unsigned __int128;
  const ops::AllScatterShape& s = cl.shape;
  const Wide e = gemm::dtype_bytes(s.dtype), m = Wide(s.m), n = Wide(s.n), k = Wide(s.k);
  const Wide contender_copies = Wide(std::max(cl.op.loopback_peers, 1));
  const Wide bytes = m * k * e + k * (n / Wide(world)) * e + m * n * e * (1 + contender_copies);
  return bytes > std::numeric_limits<std::uint64_t>::max() ? std::numeric_limits<std::uint64_t>::max()
                                                           : std::uint64_t(bytes);
}

// Heap bytes for flags and barriers beside the matrices.
constexpr std::uint64_t kFlagMargin = std::uint64_t{256} << 20;

// Empty unless --heap_size (or SYMM_HEAP_SIZE) is given and too small for the matrices
// alone; then one line with the size to give.
std::string check_heap_size(const CommandLine& cl, int world) {
  const std::uint64_t given = heap_size_given(cl);
  const std::uint64_t matrices = matrix_bytes(cl, world);
  if (given == 0 || given >= matrices) return {};
  return fmt::format("--heap_size / SYMM_HEAP_SIZE = {} cannot hold the matrices of {} x {} x {} {} on {} "
                     "ranks ({}: A, the rank's B shard, C and one C-sized buffer per contender): give at "
                     "least {}, or neither (the heap is then sized for the run)",
                     format_bytes(given), cl.shape.m, cl.shape.n, cl.shape.k, gemm::to_string(cl.shape.dtype),
                     world, format_bytes(matrices), format_bytes(heap_bytes_needed(cl, world)));
}

}  // namespace

std::string built_config_named(const std::string& name, gemm::KernelConfig& out) {
  const bool named = gemm::parse_config(name, out);
  if (named && gemm::is_built(out)) return {};
  std::vector<gemm::KernelConfig> near;  // built ones of the same tile size, if any
  for (const gemm::KernelConfig& b : gemm::kWgmmaConfigs)
    if (named && b.blk_m == out.blk_m && b.blk_n == out.blk_n) near.push_back(b);
  return fmt::format("{}: no such configuration is built; {}", name,
                     near.empty() ? "--help lists the built ones" : "built of that size: " + gemm::config_names(near));
}

std::string built_tile_names() {
  std::vector<gemm::KernelConfig> named;
  std::ranges::copy_if(gemm::kWgmmaConfigs, std::back_inserter(named), named_by_tile_flags);
  return gemm::config_names(named);
}

std::string requested_name(const RequestedVariant& v) {
  return v ? std::string(ops::to_string(*v)) : "auto";
}

std::string parse_variants(const std::string& text, std::vector<RequestedVariant>& out) {
  const auto add = [&](RequestedVariant v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  std::string allowed;
  for (ops::ScatterVariant v : ops::kScatterVariants) allowed += std::string(ops::to_string(v)) + ", ";
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string name = text.substr(begin, end - begin);
    begin = end + 1;
    if (name == "all") {
      for (ops::ScatterVariant v : ops::kScatterVariants) add(v);
    } else if (name == "auto") {
      add(std::nullopt);
    } else if (const auto v = ops::parse_variant(name)) {
      add(*v);
    } else {
      return fmt::format("--variant {}: unknown variant '{}'; allowed: {}all (every variant), auto "
                         "(the plan's choice), or a comma list of these",
                         text, name, allowed);
    }
  }
  return {};
}

nlohmann::json sweep_settings(const CommandLine& cl) {
  nlohmann::json settings = {{"--gemm_sms", cl.op.gemm_sms},
                             {"--num_sms", cl.op.num_sms},
                             {"--comm_sms", cl.op.comm_sms},
                             {"--n_warmup", cl.counts_given ? nlohmann::json(cl.n_warmup) : nlohmann::json()},
                             {"--n_repeat", cl.counts_given ? nlohmann::json(cl.n_repeat) : nlohmann::json()}};
  for (const auto& [name, value] : symm_environment())
    if (name.starts_with("SYMM_GEMM_")) settings[name] = value;
  return settings;
}

int parse(int argc, char** argv, const Program& program, CommandLine& cl) {
  CLI::App app{program.summary, program.name};
  add_launch_options(app, cl.launch);
  app.option_defaults()->always_capture_default();  // --help shows the defaults below
  std::vector<PointFlag> point_flags;  // what a preset defines instead
  const auto point_flag = [&](CLI::Option* option, const char* preset_key) {
    point_flags.push_back({option, preset_key});
  };
  point_flag(app.add_option("-m", cl.shape.m, "rows of A and C"), "sizes");
  point_flag(app.add_option("-n", cl.shape.n, "columns of C (global; each rank's B shard has n / world)"), "sizes");
  point_flag(app.add_option("-k", cl.shape.k, "columns of A, rows of B"), "sizes");
  TileFlags tile;
  point_flag(app.add_option("--BLK_M", tile.blk_m, "tile rows (default: the plan's)"), "tiles");
  point_flag(app.add_option("--BLK_N", tile.blk_n, "tile columns (default: the plan's)"), "tiles");
  point_flag(app.add_option("--BLK_K", tile.blk_k, "tile depth (default: the plan's)"), "tiles");
  point_flag(app.add_option("--num_stages", tile.stages, "pipeline stages (default: the plan's)"), "num_stages");
  std::string config_name;
  point_flag(app.add_option("--config", config_name,
                            "a configuration by name instead of the tile flags (default: the plan's); "
                            "tma_push runs every one, the other variants cooperative tiles of one "
                            "block. Built: " + gemm::config_names(gemm::kWgmmaConfigs)),
             "configs");
  point_flag(app.add_option("--gsize_m", cl.op.gsize_m, "tile rows per group of the grouped tile order"), "gsize_m");
  app.add_option("--gemm_sms", cl.op.gemm_sms, "blocks computing tiles (0: the variant's default)");
  app.add_option("--num_sms", cl.op.num_sms, "wg_specialization: blocks of the grid (0: every SM)");
  app.add_option("--comm_sms", cl.op.comm_sms, "producer_consumer: scatter blocks (0: default)");
  std::string datatype = "bf16", b_layout = "kn";
  point_flag(app.add_option("--datatype", datatype, "A, B and C element type")
                 ->check(CLI::IsMember({"bf16", "fp16"})),
             "dtypes");
  point_flag(app.add_option("--b_layout", b_layout, "B shard as K x N/world (kn) or N/world x K (nk)")
                 ->check(CLI::IsMember({"kn", "nk"})),
             "b_layout");
  add_bytes_option(app, "--heap_size", cl.heap_size,
                   "symmetric heap per rank (default: SYMM_HEAP_SIZE, else what the shapes need)");
  point_flag(app.add_flag("-v,--validate", cl.validate,
                          "check every rank's C (with neither -v nor -b: both)"),
             "validate");
  point_flag(app.add_flag("-b,--benchmark", cl.benchmark,
                          "time every variant, gemm_alone and the baselines"),
             nullptr);  // a sweep times every point
  const CLI::Option* warmup = app.add_option("--n_warmup", cl.n_warmup, "untimed iterations");
  const CLI::Option* repeat = app.add_option("--n_repeat", cl.n_repeat, "timed iterations");
  cl.output_file = program.name + ".json";
  const CLI::Option* output = app.add_option("-o,--output_file", cl.output_file,
                                             "JSON results (empty: none); a sweep's JSON lines");
  std::string variants(ops::to_string(program.variant));
  point_flag(app.add_option("--variant", variants,
                            "a variant, a comma list, all (every variant) or auto (the plan's choice)"),
             "variants");
  point_flag(app.add_flag("--baselines,!--no_baselines", cl.baselines,
                          "measure the baselines (cuBLASLt + NCCL, + copy engine, ...) beside the variants"),
             "baselines");
  point_flag(app.add_flag("-t,--trace_tiles", cl.trace_tiles,
                          "after measuring, run each variant once more with its tile timeline recorded: "
                          "<output stem>.<variant>.trace.json (open in ui.perfetto.dev)"),
             nullptr);
  point_flag(app.add_option("--split_tail", cl.op.split_tail,
                            "split the last wave's tiles along K (the GEMM's and the op's): -1 where "
                            "the model predicts a gain, 0 never, 1 always (not fused_sequential)"),
             nullptr);
  point_flag(app.add_option("--loopback_peers", cl.op.loopback_peers,
                            "one rank only: this many C copies on the same GPU stand for peers (push cost)"),
             "loopback_peers");
  app.add_option("--preset", cl.preset,
                 "sweep every point of this preset (bench/presets/*.json), one launch per rank count, "
                 "appending to -o (default sweep-<preset>.jsonl) and resuming from it");
  app.add_option("--seed", cl.seed, "random operands' seed (0: a fresh one, printed)");
  if (const int code = parse_command_line(app, argc, argv); code >= 0) return code;
  if (!cl.validate && !cl.benchmark) cl.validate = cl.benchmark = true;
  cl.counts_given = warmup->count() > 0 || repeat->count() > 0;
  cl.shape.dtype = datatype == "fp16" ? gemm::DType::fp16 : gemm::DType::bf16;
  cl.shape.b_layout = b_layout == "nk" ? gemm::BLayout::nk : gemm::BLayout::kn;

  std::string problem = check_bounds(cl, tile);
  if (problem.empty()) problem = check_settings();
  if (problem.empty() && !cl.preset.empty())
    problem = check_sweep_flags(point_flags, output->count() > 0, cl);
  if (problem.empty()) problem = parse_variants(variants, cl.variants);
  if (problem.empty()) problem = resolve_config(config_name, tile, cl.op.config);
  // The world is known before the launch only from -r; otherwise each rank checks it. A
  // sweep's points are checked one by one (sweep_rules.hpp).
  if (problem.empty() && cl.launch.num_ranks > 0 && cl.preset.empty())
    problem = check_combination(cl, cl.launch.num_ranks, gemm::DeviceLimits{}.sm_count);
  if (problem.empty()) problem = check_output_file("-o/--output_file", cl.output_file);
  // A single run's results file is written whole at the end, over what was there.
  if (problem.empty() && cl.preset.empty()) problem = check_not_a_sweep_file("-o/--output_file", cl.output_file);
  if (problem.empty()) return -1;
  log::error(fmt::format("{}: {}", program.name, problem));
  return 2;
}

std::string check_combination(const CommandLine& cl, int world, int sm_count) {
  const ops::AllScatterShape& s = cl.shape;
  if (cl.op.loopback_peers > 0 && world != 1)
    return fmt::format("--loopback_peers {} stands for peers on one GPU and needs one rank (-r 1); "
                       "this run has {}",
                       cl.op.loopback_peers, world);
  if (s.n % world != 0)
    return fmt::format("-n {} must be a multiple of the number of ranks ({}): each rank holds "
                       "n / world columns of B",
                       s.n, world);
  if ((s.n / world) % 8 != 0)
    return fmt::format("-n {}: each rank's shard of {} columns must be a multiple of 8 (rows of "
                       "16 bytes for TMA); use an -n that is a multiple of {}",
                       s.n, s.n / world, 8 * world);
  if (std::string why = ops::validate(s, world); !why.empty()) return why;
  if (std::string why = check_heap_size(cl, world); !why.empty()) return why;
  if (std::string why = ops::validate(cl.op, world, sm_count); !why.empty()) return why;
  for (const RequestedVariant& v : cl.variants) {
    ops::GemmAllScatterOptions options = cl.op;
    options.variant = v;
    try {
      ops::make_plan(s, options, world, sm_count);
    } catch (const Error& e) {
      return fmt::format("--variant {} on {} ranks, {} SMs: {}", requested_name(v), world, sm_count,
                         e.what());
    }
  }
  return {};
}

std::uint64_t heap_bytes_needed(const CommandLine& cl, int world) {
  const std::uint64_t matrices = matrix_bytes(cl, world);
  return matrices > std::numeric_limits<std::uint64_t>::max() - kFlagMargin ? matrices : matrices + kFlagMargin;
}

std::uint64_t heap_size_given(const CommandLine& cl) {
  return cl.heap_size > 0 ? cl.heap_size : settings::heap_size().value_or(0);
}

std::uint64_t device_bytes_needed(const CommandLine& cl, int world) {
  using Wide = unsigned __int128;
  const ops::AllScatterShape& s = cl.shape;
  const Wide e = gemm::dtype_bytes(s.dtype), m = Wide(s.m), n = Wide(s.n), k = Wide(s.k);
  const Wide shard_n = n / Wide(world);
  const std::uint64_t given = heap_size_given(cl);
  Wide bytes = Wide(given > 0 ? given : heap_bytes_needed(cl, world)) + kDeviceReserveBytes;
  if (cl.validate) bytes += m * n * 4 + k * shard_n * e;  // the reference C and its B shard
  if (cl.baselines) bytes += m * n * e + m * shard_n * (4 + e);  // the gathered C; the check's
  return bytes > std::numeric_limits<std::uint64_t>::max() ? std::numeric_limits<std::uint64_t>::max()
                                                           : std::uint64_t(bytes);
}

std::string memory_problem(const CommandLine& cl, int world, std::uint64_t bytes_per_rank) {
  const std::uint64_t needed = device_bytes_needed(cl, world);
  if (needed <= bytes_per_rank) return {};
  const std::uint64_t given = heap_size_given(cl);
  return fmt::format("needs about {} of GPU memory per rank ({} of it symmetric heap{}); each rank of this launch "
                     "has {} (its GPU's free memory shared among the ranks on it): run it as a smaller shape, on "
                     "GPUs with more free memory, or with fewer ranks on a GPU where ranks share one{}",
                     format_bytes(needed), format_bytes(given > 0 ? given : heap_bytes_needed(cl, world)),
                     given > 0 ? ", as --heap_size / SYMM_HEAP_SIZE gave" : "", format_bytes(bytes_per_rank),
                     given > 0 ? ", or give a smaller heap" : "");
}

}  // namespace symm::examples::gemm_all_scatter
