// The command line, the ranks and a Session per rank (example.hpp); tables and JSON are
// in report.cc.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>

#include "example.hpp"
#include "records.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/gather.hpp"
#include "symm/host/input_checks.hpp"
#include "symm/host/launch.hpp"
#include "symm/host/log.hpp"
#include "symm/host/options.hpp"
#include "symm/host/settings.hpp"

namespace symm::examples {
namespace {

struct CommandLine {
  Options options;
  LaunchOptions launch;
  std::uint64_t heap_size = 0;  // 0: what the example needs
  bool counts_given = false;    // --n_warmup, --n_repeat or --iterations on the command line
};

// The numeric options' ranges and the results file, checked before any rank starts;
// returns what is wrong, or empty.
std::string check_options(const Spec& spec, const CommandLine& cl) {
  const Options& o = cl.options;
  for (std::string why :
       {check_at_least("--iterations", o.iterations, spec.iterations > 0 ? 1 : 0),
        check_at_least("--blocks", o.blocks, 0), check_between("--threads", o.threads, 32, 1024),
        check_at_least("--n_warmup", o.n_warmup, 0), check_at_least("--n_repeat", o.n_repeat, 1)}) {
    if (!why.empty()) return why;
  }
  if (o.min_bytes < 8 || o.min_bytes % 8 != 0 || o.max_bytes % 8 != 0 || o.min_bytes > o.max_bytes)
    return fmt::format("sizes must be multiples of 8 bytes with 8 <= --min_bytes <= --max_bytes "
                       "(got {} and {})",
                       o.min_bytes, o.max_bytes);
  // With -r the world is known now; otherwise each rank checks it.
  const int ranks = cl.launch.num_ranks;
  if (ranks > 0 && ranks < spec.min_ranks)
    return fmt::format("-r {}: this example needs at least {} ranks (-r {})", ranks, spec.min_ranks,
                       spec.min_ranks);
  return check_output_file("-o/--output_file", o.output_file);
}

// Parses argv; returns the exit code for a bad or --help command line (0 after --help,
// 2 for a bad command line, with one line saying what is wrong), else -1.
int parse(int argc, char** argv, const Spec& spec, CommandLine& cl) {
  Options& o = cl.options;
  o.min_bytes = spec.min_bytes;
  o.max_bytes = spec.max_bytes;
  o.iterations = spec.iterations;
  o.output_file = spec.name + ".json";
  CLI::App app{spec.summary, spec.name};
  add_launch_options(app, cl.launch);
  app.option_defaults()->always_capture_default();  // --help shows the defaults below
  app.add_flag("-v,--validate", o.validate, "check every case's results (with neither -v nor -b: both)");
  app.add_flag("-b,--benchmark", o.benchmark, "time every case and print the tables");
  if (spec.has_sizes) {
    add_bytes_option(app, "--min_bytes", o.min_bytes, "smallest transfer, a multiple of 8 bytes");
    add_bytes_option(app, "--max_bytes", o.max_bytes, "largest transfer (sizes double up to it)");
  }
  std::vector<CLI::Option*> counts;
  if (spec.iterations > 0)
    counts.push_back(app.add_option("-i,--iterations", o.iterations, "operations per kernel (>= 1)"));
  app.add_option("--blocks", o.blocks, "thread blocks per kernel (0: one per SM)");
  app.add_option("--threads", o.threads, "threads per block (32 to 1024)");
  counts.push_back(app.add_option("--n_warmup", o.n_warmup, "untimed iterations per case (>= 0)"));
  counts.push_back(app.add_option("--n_repeat", o.n_repeat, "timed iterations per case (>= 1)"));
  app.add_option("-o,--output_file", o.output_file, "JSON results (empty: none)");
  add_bytes_option(app, "--heap_size", cl.heap_size, "symmetric heap per rank (0: as needed)");
  if (const int code = parse_command_line(app, argc, argv); code >= 0) return code;
  if (!o.validate && !o.benchmark) o.validate = o.benchmark = true;
  cl.counts_given = std::any_of(counts.begin(), counts.end(), [](auto* c) { return c->count() > 0; });
  if (const std::string why = check_options(spec, cl); !why.empty()) {
    log::error(fmt::format("{}: {}", spec.name, why));
    return 2;
  }
  return -1;
}

}  // namespace

Session::Session(const Spec& spec, const Options& options, Runtime& rt, int argc, char** argv)
    : spec_(spec), options_(options), rt_(rt), records_(std::make_unique<Records>(argc, argv)) {
  devices_ = gather(rt.team(), rt.device());
  std::vector<int> sorted = devices_;
  std::sort(sorted.begin(), sorted.end());
  ranks_share_gpus_ = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  bench_device_ = std::make_unique<CudaBenchDevice>(stream_.get());
}

Session::~Session() = default;

void Session::scale_counts_for_shared_gpus() {
  options_.n_warmup = std::min(options_.n_warmup, 1);
  options_.n_repeat = std::min(options_.n_repeat, 3);
  options_.iterations = std::max(1, options_.iterations / 100);
  if (rt_.rank() == 0) {
    log::info(fmt::format("{}: ranks share GPUs, so this run checks correctness, not speed: "
                          "{} warm-up and {} timed iterations, {} operations per kernel "
                          "(set --n_warmup, --n_repeat, --iterations to override)",
                          spec_.name, options_.n_warmup, options_.n_repeat, options_.iterations));
  }
}

void Session::progress(const std::string& done) const {
  if (ranks_share_gpus_ && rt_.rank() == 0) log::info(fmt::format("{}: {}", spec_.name, done));
}

int Session::blocks() const { return options_.blocks > 0 ? options_.blocks : rt_.sm_count(); }

std::vector<std::uint64_t> Session::sizes() const {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = options_.min_bytes; s <= options_.max_bytes; s *= 2) sizes.push_back(s);
  return sizes;
}

std::vector<Pair> Session::pairs(bool include_self) const {
  std::vector<Pair> pairs;
  for (int i = 0; i < rt_.world(); ++i) {
    for (int j = 0; j < rt_.world(); ++j) {
      if (include_self || i != j) pairs.push_back({i, j});
    }
  }
  return pairs;
}

CrossRankSummary Session::time(const std::function<void()>& fn,
                               const std::function<void()>& preamble) {
  BenchOptions bench;
  bench.n_warmup = options_.n_warmup;
  bench.n_repeat = options_.n_repeat;
  const auto barrier = [this] { rt_.barrier(stream_.get()); };
  const auto nothing = [] {};
  const BenchResult mine =
      do_bench(*bench_device_, fn, barrier, preamble ? preamble : nothing, bench);
  // A launch refused for its configuration sets the error without stopping anything: one
  // check after the timed calls (none inside, where it would add host time) catches it.
  check_cuda(cudaGetLastError(), "a kernel launch in the timed function",
             "the figures of this case are void");
  return summarize_across_ranks(rt_.team(), mine);
}

void Session::record(const Figure& figure, const CrossRankSummary& timing) {
  records_->figures.push_back({figure, timing});
}

void Session::compare(const std::string& numerator, const std::string& denominator) {
  records_->comparisons.emplace_back(numerator, denominator);
}

void Session::validated(const std::string& what, std::uint64_t wrong) {
  ++checks_;
  if (wrong == 0) return;
  ++failures_;
  log::error(fmt::format("{}: validation failed: {}: {} wrong elements", spec_.name, what, wrong));
}

int Session::finish() {
  SYMM_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  const auto checks = gather(rt_.team(), checks_);
  const auto failures = gather(rt_.team(), failures_);
  std::uint64_t total_checks = 0, total_failures = 0;
  for (int r = 0; r < rt_.world(); ++r) {
    total_checks += checks[r];
    total_failures += failures[r];
  }
  if (rt_.rank() == 0) {
    if (options_.validate) {
      log::info(fmt::format("{}: validation {}: {} cases checked on {} ranks, {} failed", spec_.name,
                            total_failures == 0 ? "passed" : "FAILED", total_checks, rt_.world(),
                            total_failures));
    }
    records_->validation = {total_checks, total_failures};
    records_->print(spec_);
    if (!options_.output_file.empty()) records_->write(options_.output_file, rt_, spec_);
  }
  return total_failures == 0 ? 0 : 1;
}

int run(int argc, char** argv, const Spec& spec, const Body& body) {
  CommandLine cl;
  if (const int code = parse(argc, argv, spec, cl); code >= 0) return code;
  return launch(cl.launch, [&](Team& team) {
    if (team.world() < spec.min_ranks) {
      log::error(fmt::format("{} needs at least {} ranks (-r {}); it got {}", spec.name,
                             spec.min_ranks, spec.min_ranks, team.world()));
      return 2;
    }
    // The heap: --heap_size, else SYMM_HEAP_SIZE, else what the example needs.
    RuntimeOptions runtime_options = RuntimeOptions::from_env();
    if (cl.heap_size > 0)
      runtime_options.heap_size = cl.heap_size;
    else if (!settings::heap_size())
      runtime_options.heap_size = spec.heap_bytes(team.world(), cl.options.max_bytes) + (64 << 20);
    Runtime rt(team, runtime_options);
    Options options = cl.options;
    Session session(spec, options, rt, argc, argv);
    if (session.ranks_share_gpus() && !cl.counts_given) {
      // Ranks on one GPU take turns: correctness only, so keep the counts small.
      session.scale_counts_for_shared_gpus();
    }
    body(session);
    return session.finish();
  });
}

}  // namespace symm::examples
