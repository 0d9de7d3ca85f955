// The driver: the command line, then on every rank the runtime and one point (the
// operands, the reference, each contender in turn), and on rank 0 the table and the JSON
// file; or, with --preset, a sweep of many points (sweep.hpp).
#include "driver.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "command_line.hpp"
#include "point.hpp"
#include "rank_setup.hpp"
#include "sweep.hpp"
#include "symm/host/launch.hpp"
#include "symm/host/log.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

int rank_main(Team& team, const Program& program, const CommandLine& cl, int argc, char** argv) {
  // Said before the heap is mapped, in the run's terms rather than as a failed allocation.
  if (const std::string why = memory_problem(cl, team.world(), free_memory_per_rank(team)); !why.empty()) {
    if (team.rank() == 0)
      log::error(fmt::format("{}: {} x {} x {} {} on {} ranks {}", program.name, cl.shape.m, cl.shape.n, cl.shape.k,
                             gemm::to_string(cl.shape.dtype), team.world(), why));
    return 2;
  }
  Runtime rt(team, runtime_options(cl, heap_bytes_needed(cl, team.world())));
  // What the supervisor could not check: the world without -r, the GPU's SM count.
  if (const std::string why = check_combination(cl, rt.world(), rt.sm_count()); !why.empty()) {
    if (rt.rank() == 0) log::error(fmt::format("{}: {}", program.name, why));
    return 2;
  }
  OwnedStream stream;
  const int gpus = distinct_gpus(rt);
  const bool shared = gpus < rt.world();
  const BenchOptions counts = run_counts(cl, shared);
  const std::uint64_t seed = agreed_seed(team, cl.seed);
  if (rt.rank() == 0) {
    log::info(fmt::format("{}: {} rank{} on {} GPU{}, seed {} (--seed {} gives the same operands){}",
                          program.name, rt.world(), rt.world() == 1 ? "" : "s", gpus,
                          gpus == 1 ? "" : "s", seed, seed,
                          shared ? fmt::format("; ranks share GPUs: a correctness run, not speed, "
                                               "with {} warm-up and {} timed iterations",
                                               counts.n_warmup, counts.n_repeat)
                                 : ""));
  }
  const std::vector<Row> rows = measure_point(rt, Point{cl, {{cl.op.config, cl.variants}}, counts, seed}, stream.get());

  const RunFacts facts{program, cl, rt.world(), gpus, shared, seed};
  if (rt.rank() == 0) {
    print_table(facts, rows);
    write_results(facts, rows, rt, argc, argv);
  }
  const bool failed = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.valid == false; });
  return failed ? 1 : 0;
}

}  // namespace

int run(int argc, char** argv, const Program& program) {
  CommandLine cl;
  if (const int code = parse(argc, argv, program, cl); code >= 0) return code;
  if (!cl.preset.empty()) return run_sweep(program, cl, argc, argv);
  return launch(cl.launch, [&](Team& team) { return rank_main(team, program, cl, argc, argv); });
}

}  // namespace symm::examples::gemm_all_scatter
