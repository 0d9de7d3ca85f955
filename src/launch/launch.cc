// symm::launch: decides between joining an external launcher and spawning ranks, and
// checks what must hold before any rank starts (GPUs, one host, no N x N spawning).
#include "symm/host/launch.hpp"

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "env.hpp"
#include "gpu_count.hpp"
#include "launcher_env.hpp"
#include "limits.hpp"
#include "rank_runner.hpp"
#include "rendezvous.hpp"
#include "socket_team.hpp"
#include "supervisor.hpp"
#include "symm/host/log.hpp"
#include "symm/host/settings.hpp"

namespace symm {
namespace {

using detail::LauncherInfo;

// The signal that interrupted the last job this process supervised (0: none), for exit_with.
int interrupted_by = 0;

std::string no_gpu_line(const detail::GpuCount& gpus) {
  return fmt::format("no GPU visible ({}); this program needs at least one NVIDIA GPU", gpus.why_none);
}

// Refuses (returns false) when the program needs a GPU and none is visible; notes when
// ranks will share GPUs.
bool check_gpus(const detail::GpuCount& gpus, const LaunchOptions& options, int world, bool announce) {
  if (options.needs_gpu && gpus.visible == 0) {
    log::error(no_gpu_line(gpus));
    return false;
  }
  if (announce && gpus.visible > 0 && world > gpus.visible) {
    log::info(fmt::format("{} ranks on {} GPU{}: rank r uses GPU r % {}. Ranks sharing a GPU take turns "
                          "(unless MPS runs), so this run checks correctness, not speed",
                          world, gpus.visible, gpus.visible == 1 ? "" : "s", gpus.visible));
  }
  return true;
}

std::chrono::milliseconds rank_time_limit(const LaunchOptions& options) {
  if (options.rank_timeout) return *options.rank_timeout;  // given: even 0 (no limit) wins
  return settings::rank_timeout().value_or(std::chrono::milliseconds(0));
}

int join(const LauncherInfo& launcher, const LaunchOptions& options, const std::function<int(Team&)>& rank_main) {
  if (options.num_ranks > 0 && options.num_ranks != launcher.world) {
    log::error(fmt::format(
        "refusing to spawn {0} ranks (-r {0}): this process is rank {1} of {2} started by {3} (job {4}). "
        "If every process the launcher started spawned its own ranks, {2} x {0} = {5} processes would "
        "fight over the GPUs and the rendezvous (the hang of Iris example 10). Either let {3} start "
        "the ranks (drop -r, or pass -r {2}), or run the program without {3}, with -r {0}.",
        options.num_ranks, launcher.rank, launcher.world, launcher.name, launcher.job,
        options.num_ranks * launcher.world));
    return 1;
  }
  if (!launcher.other_hosts.empty()) {
    log::error(fmt::format(
        "{} started this job's ranks on more than one host ({}); symm runs every rank of a job on one "
        "host, because the heap's file descriptors cannot cross hosts. Start the job on one host "
        "(torchrun --nnodes=1, mpirun on one host, srun -N 1).",
        launcher.name, launcher.other_hosts));
    return 1;
  }
  if (!check_gpus(detail::count_gpus(), options, launcher.world, launcher.rank == 0)) return 1;
  if (options.rank_timeout && options.rank_timeout->count() > 0 && launcher.rank == 0) {
    log::warn(fmt::format("--rank_timeout applies to ranks symm spawns; under {} the launcher decides when "
                          "the job ends",
                          launcher.name));
  }

  detail::enter_rank(launcher.rank, launcher.world, launcher.local_rank);
  log::info(fmt::format("joined external launcher {} (job {})", launcher.name, launcher.job));
  const auto timeout = settings::bootstrap_timeout();
  std::vector<UniqueFd> sockets(static_cast<std::size_t>(launcher.world));
  if (launcher.world > 1) {
    const auto place = detail::rendezvous_place(launcher.identity, detail::process_env());
    if (launcher.rank == 0) {
      sockets = detail::rendezvous_host(launcher, place, timeout);
    } else {
      sockets[0] = detail::rendezvous_join(launcher, place, timeout);
    }
  }
  auto team = detail::make_socket_team(launcher.rank, launcher.world, std::move(sockets), timeout);
  return detail::run_rank_main(*team, rank_main).code;
}

int spawn(const LaunchOptions& options, const std::function<int(Team&)>& rank_main) {
  const detail::GpuCount gpus = detail::count_gpus();
  const int world = options.num_ranks > 0 ? options.num_ranks : std::max(gpus.visible, 1);
  if (!check_gpus(gpus, options, world, true)) return 1;
  detail::SpawnPlan plan{world, rank_time_limit(options), options.kill_grace};
  return detail::supervise(plan, rank_main, interrupted_by);
}

}  // namespace

std::string no_gpu_message() {
  const detail::GpuCount gpus = detail::count_gpus();
  return gpus.visible > 0 ? std::string{} : no_gpu_line(gpus);
}

int launch(const LaunchOptions& options, const std::function<int(Team&)>& rank_main) {
  // Before any rank, NVML or CUDA call: a bad SYMM_* variable is a bad command line (2),
  // said at once rather than by every rank after the GPU started.
  if (const std::string problems = settings::check_all(); !problems.empty()) {
    log::error(problems);
    return 2;
  }
  try {
    if (options.num_ranks < 0 || options.num_ranks > detail::kMaxRanks) {
      throw Error(fmt::format("num_ranks must be between 1 and {} (0: one per GPU), not {}", detail::kMaxRanks,
                              options.num_ranks));
    }
    const auto launcher = detail::detect_launcher(detail::process_env());
    if (launcher && launcher->world > 1) detail::check_identity_as_peers_see_it(*launcher);
    if (launcher && launcher->world == 1 && options.num_ranks > 1) {
      log::info(fmt::format("{} started a single process (job {}); it spawns and supervises its {} ranks",
                            launcher->name, launcher->job, options.num_ranks));
    } else if (launcher) {
      return join(*launcher, options, rank_main);
    }
    return spawn(options, rank_main);
  } catch (const std::exception& e) {
    log::error(e.what());
    return 1;
  }
}

void exit_with(int code) {
  std::fflush(nullptr);
  if (interrupted_by != 0 && code == 128 + interrupted_by) {
    struct sigaction action{};
    if (::sigaction(interrupted_by, nullptr, &action) == 0 && action.sa_handler == SIG_DFL) {
      sigset_t only;
      sigemptyset(&only);
      sigaddset(&only, interrupted_by);
      ::pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
      ::raise(interrupted_by);
    }
  }
  std::exit(code);
}

}  // namespace symm
