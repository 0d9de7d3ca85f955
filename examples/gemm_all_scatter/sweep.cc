// The sweep: worlds in the supervisor, points in the ranks (sweep.hpp).
#include "sweep.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "point.hpp"
#include "rank_setup.hpp"
#include "sweep_file.hpp"
#include "sweep_preset.hpp"
#include "sweep_progress.hpp"
#include "sweep_rules.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/launch.hpp"
#include "symm/host/log.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

using nlohmann::json;

struct Sweep {
  const Program& program;
  const CommandLine& cl;
  SweepPreset preset;
  SweepFile file;
  int argc;
  char** argv;
};

// What the supervisor knows (no CUDA there): the command, the commit, the time.
RunInfo supervisor_run_info(const Sweep& sweep, int world) {
  RunInfo info;
  info.command_line = command_line_of(sweep.argc, sweep.argv);
  info.git_commit = git_commit_from_env();
  info.timestamp = utc_timestamp_now();
  info.world = world;
  return info;
}

// A point that produced no measurements: one row that says why (`field`: "skipped" or
// "failed").
void record_unmeasured(const Sweep& sweep, const SweepPoint& point, const char* field,
                       const std::string& why) {
  const ops::AllScatterShape& s = point.shape;
  const json row = {{"program", sweep.program.name}, {"m", s.m}, {"n", s.n}, {"k", s.k},
                    {"world", point.world}, {"dtype", gemm::to_string(s.dtype)},
                    {"b_layout", gemm::to_string(s.b_layout)}, {"variant", nullptr}, {field, why}};
  sweep.file.append(result_line(point.key, 0, supervisor_run_info(sweep, point.world), {row}));
}

// One launch's work on every rank: the points of one world that are not finished yet.
int measure_points(Team& team, const Sweep& sweep, const std::vector<SweepPoint>& todo,
                   const SweepProgress& progress_at_launch) {
  const int world = team.world();
  SweepProgress progress = progress_at_launch;
  // Memory, decided before the heap is mapped (sweep_rules.hpp): too large even alone,
  // skipped; not beside this launch's heap, left to the next launch.
  std::vector<CommandLine> lines;
  for (const SweepPoint& p : todo) lines.push_back(point_command_line(sweep.cl, sweep.preset, p));
  const LaunchMemory memory = plan_launch_memory(lines, world, free_memory_per_rank(team));
  for (const auto& [i, why] : memory.skipped) {
    if (team.rank() != 0) continue;
    record_unmeasured(sweep, todo[i], "skipped", why);
    progress.begin(todo[i].key);
    progress.finish(todo[i].key, 0, false, "skipped: " + why);
  }
  if (memory.now.empty()) return 0;
  Runtime rt(team, runtime_options(sweep.cl, memory.heap));
  OwnedStream stream;
  const int gpus = distinct_gpus(rt);
  const bool shared = gpus < world;
  int max_smem = 0;
  SYMM_CUDA_CHECK(
      cudaDeviceGetAttribute(&max_smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, rt.device()));
  const std::uint64_t seed = agreed_seed(team, sweep.cl.seed);
  for (const std::size_t i : memory.now) {
    const SweepPoint& point = todo[i];
    const CommandLine& cl = lines[i];
    const auto start = std::chrono::steady_clock::now();
    if (rt.rank() == 0) {
      sweep.file.append(started_line(point.key));
      progress.begin(point.key);
    }
    PointPlan plan = plan_point(cl, sweep.preset.configs, world, rt.sm_count(), max_smem);
    std::vector<Row> rows;
    if (!plan.groups.empty())
      rows = measure_point(rt, Point{cl, plan.groups, run_counts(cl, shared), seed}, stream.get());
    for (Row& row : plan.skipped) rows.push_back(std::move(row));
    if (rt.rank() == 0) {
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const RunFacts facts{sweep.program, cl, world, gpus, shared, seed};
      std::vector<json> json_rows = rows_json(facts, rows);
      const std::string summary =
          plan.groups.empty() ? "skipped: " + plan.skipped.front().skipped : point_summary(json_rows);
      sweep.file.append(result_line(point.key, seconds, collect_run_info(sweep.argc, sweep.argv, rt),
                                    std::move(json_rows)));
      progress.finish(point.key, seconds, !plan.groups.empty(), summary);
    }
  }
  return 0;
}

// Exit codes of a launch that was stopped from outside (a time limit, SIGHUP, SIGINT,
// SIGTERM) rather than by a failing rank.
bool interrupted(int code) {
  return code == 124 || code == 128 + 1 || code == 128 + 2 || code == 128 + 15;
}

// Runs the world's unfinished points, launching the ranks again after a point that
// killed them, and for points left to a launch with a smaller heap. `points`: every point
// this sweep runs (progress counts them all). Returns 0, or the code that stops the sweep.
int run_world(const Sweep& sweep, int world, const std::vector<SweepPoint>& points, bool terminal) {
  const auto todo_of_world = [&](const SweepState& state) {
    std::vector<SweepPoint> todo;
    for (const SweepPoint& p : unfinished(points, state))
      if (p.world == world) todo.push_back(p);
    return todo;
  };
  for (;;) {
    const SweepState state = sweep.file.read();
    const std::vector<SweepPoint> left = unfinished(points, state);
    const std::vector<SweepPoint> todo = todo_of_world(state);
    if (todo.empty()) return 0;
    const int done = int(points.size() - left.size());
    const SweepProgress progress(int(points.size()), done, state.seconds, terminal);
    LaunchOptions options = sweep.cl.launch;
    options.num_ranks = world;
    const int code =
        launch(options, [&](Team& team) { return measure_points(team, sweep, todo, progress); });
    if (code == 0) {
      // Points left for a launch with a smaller heap (measure_points) come next; a launch
      // that finished none would repeat forever.
      if (todo_of_world(sweep.file.read()).size() < todo.size()) continue;
      log::error(fmt::format("sweep: the {}-rank launch finished none of its {} points; see above", world,
                             todo.size()));
      return 1;
    }
    if (interrupted(code)) {
      log::error(fmt::format("sweep interrupted (exit code {}); run the same command again to "
                             "resume from {}",
                             code, sweep.file.path()));
      return code;
    }
    // The point this launch was measuring when a rank died (an earlier session's
    // interrupted point is not this launch's).
    const SweepState after = sweep.file.read();
    const std::optional<std::string> lost =
        after.started > state.started ? after.interrupted : std::nullopt;
    if (!lost) {
      log::error(fmt::format("sweep: the ranks of the {}-rank launch failed before measuring (exit "
                             "code {}); see above",
                             world, code));
      return code;
    }
    const auto point =
        std::find_if(todo.begin(), todo.end(), [&](const SweepPoint& p) { return p.key == *lost; });
    if (point == todo.end()) {
      log::error(fmt::format("sweep: the ranks failed (exit code {}) after point {}, which is not one of "
                             "this launch's; see above", code, *lost));
      return code;
    }
    record_unmeasured(sweep, *point, "failed",
                      fmt::format("the ranks ended with exit code {} during this point (the log says "
                                  "why)",
                                  code));
    log::error(fmt::format("sweep: point {} failed (exit code {}); recorded, launching the ranks "
                           "again for the rest",
                           *lost, code));
  }
}

}  // namespace

int run_sweep(const Program& program, const CommandLine& cl, int argc, char** argv) {
  try {
    SweepPreset preset = load_preset(cl.preset);
    SweepFile file(cl.output_file, cl.preset, preset.source, sweep_settings(cl));
    Sweep sweep{program, cl, std::move(preset), std::move(file), argc, argv};
    std::vector<SweepPoint> points = expand(sweep.preset);
    if (cl.launch.num_ranks > 0)  // -r picks one world
      std::erase_if(points, [&](const SweepPoint& p) { return p.world != cl.launch.num_ranks; });
    const int gpus = count_visible_gpus();
    const bool terminal = ::isatty(STDERR_FILENO) == 1;
    std::vector<int> worlds;
    for (const SweepPoint& p : points)
      if (std::find(worlds.begin(), worlds.end(), p.world) == worlds.end()) worlds.push_back(p.world);
    for (int world : worlds) {
      if (const std::string why = world_skip_reason(world, gpus); !why.empty()) {
        for (const SweepPoint& p : unfinished(points, sweep.file.read()))
          if (p.world == world) record_unmeasured(sweep, p, "skipped", why);
        log::info(fmt::format("sweep: skipping {} ranks: {}", world, why));
        continue;
      }
      if (const int code = run_world(sweep, world, points, terminal); code != 0) return code;
    }
    // Only this run's points: -r leaves the file's other rank counts, and their failures, out.
    const SweepCounts counts = count_points(points, sweep.file.read());
    log::info(fmt::format("sweep: {} of {} points measured, {} skipped{}, {} failed; results in {} (report: "
                          "tools/report/symm-report {} --out DIR)",
                          counts.measured, points.size(), counts.skipped,
                          counts.skipped ? " (why: above; a later run tries them again)" : "", counts.failed,
                          sweep.file.path(), sweep.file.path()));
    // Skips alone (what this machine cannot run) are no failure: the short sweep on one GPU.
    return counts.failed == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    log::error(fmt::format("{}: {}", program.name, e.what()));
    return 1;
  }
}

}  // namespace symm::examples::gemm_all_scatter
