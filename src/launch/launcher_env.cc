#include "launcher_env.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include "limits.hpp"
#include "symm/common/error.hpp"

namespace symm::detail {
namespace {

// The first of the variables that is set, with its name.
struct Found {
  std::string name;
  std::string value;
};

std::optional<Found> first_of(const EnvLookup& env, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (auto value = env(name)) return Found{name, *value};
  }
  return std::nullopt;
}

int integer_variable(const LauncherInfo& info, const Found& var, int min, int max) {
  auto value = parse_integer(var.value);
  if (!value || *value < min || *value > max) {
    throw Error(fmt::format("{} set {}={}, which is not an integer in [{}, {}]", info.name,
                            var.name, var.value, min, max));
  }
  return static_cast<int>(*value);
}

// Fills rank/world/local_rank from the launcher's variables and checks them.
void read_ranks(const EnvLookup& env, LauncherInfo& info, const Found& rank, const Found& world,
                std::initializer_list<const char*> local_rank_names) {
  info.world = integer_variable(info, world, 1, kMaxRanks);
  info.rank = integer_variable(info, rank, 0, info.world - 1);
  auto local = first_of(env, local_rank_names);
  info.local_rank = local ? integer_variable(info, *local, 0, info.world - 1) : info.rank;
}

void note_hosts(const EnvLookup& env, LauncherInfo& info, const char* local_size_name,
                const Found& world) {
  auto local = env(local_size_name);
  if (local) integer_variable(info, Found{local_size_name, *local}, 1, kMaxRanks);  // "not an integer", not "hosts"
  if (local && parse_integer(*local) != info.world) {
    info.other_hosts = fmt::format("{}={} but {}={}", world.name, world.value, local_size_name, *local);
  }
}

std::optional<LauncherInfo> torchrun(const EnvLookup& env) {
  auto rank = first_of(env, {"RANK"});
  auto world = first_of(env, {"WORLD_SIZE"});
  if (!rank || !world) return std::nullopt;
  LauncherInfo info;
  auto run_id = env("TORCHELASTIC_RUN_ID");
  info.name = run_id ? "torchrun" : "a torch.distributed-style launcher (RANK/WORLD_SIZE)";
  read_ranks(env, info, *rank, *world, {"LOCAL_RANK"});
  note_hosts(env, info, "LOCAL_WORLD_SIZE", *world);
  if (auto groups = env("GROUP_WORLD_SIZE"); groups && parse_integer(*groups).value_or(1) > 1) {
    info.other_hosts = fmt::format("GROUP_WORLD_SIZE={} (one group per host)", *groups);
  }
  auto addr = env("MASTER_ADDR").value_or("");
  auto port = env("MASTER_PORT");
  if (!run_id && !port) return info;  // identity left empty: SYMM_JOB_ID must name the job
  auto restart = env("TORCHELASTIC_RESTART_COUNT").value_or("0");
  info.job = fmt::format("run {}, master {}:{}, restart {}", run_id.value_or("-"), addr,
                         port.value_or("-"), restart);
  info.identity = "torchrun|" + info.job;
  return info;
}

std::optional<LauncherInfo> open_mpi(const EnvLookup& env) {
  auto rank = first_of(env, {"OMPI_COMM_WORLD_RANK"});
  auto world = first_of(env, {"OMPI_COMM_WORLD_SIZE"});
  if (!rank || !world) return std::nullopt;
  LauncherInfo info;
  info.name = "Open MPI";
  read_ranks(env, info, *rank, *world, {"OMPI_COMM_WORLD_LOCAL_RANK"});
  note_hosts(env, info, "OMPI_COMM_WORLD_LOCAL_SIZE", *world);
  // Open MPI 5 (PRRTE) names the job by its PMIx namespace, Open MPI 4 by its job id.
  if (auto job = first_of(env, {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "OMPI_MCA_orte_ess_jobid"})) {
    info.job = job->value;
    info.identity = "openmpi|" + job->name + "=" + job->value;
  }
  return info;
}

std::optional<LauncherInfo> slurm(const EnvLookup& env) {
  // SLURM_STEP_ID is set by srun, not in a batch script: a program started directly by
  // sbatch or salloc spawns its own ranks.
  auto rank = first_of(env, {"SLURM_PROCID"});
  auto step = first_of(env, {"SLURM_STEP_ID", "SLURM_STEPID"});
  auto world = first_of(env, {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_NPROCS"});
  if (!rank || !step || !world) return std::nullopt;
  LauncherInfo info;
  info.name = "Slurm";
  read_ranks(env, info, *rank, *world, {"SLURM_LOCALID"});
  if (auto nodes = first_of(env, {"SLURM_STEP_NUM_NODES", "SLURM_NNODES", "SLURM_JOB_NUM_NODES"});
      nodes && parse_integer(nodes->value).value_or(1) > 1) {
    info.other_hosts = fmt::format("{}={}", nodes->name, nodes->value);
  }
  if (auto job = first_of(env, {"SLURM_JOB_ID", "SLURM_JOBID"})) {
    info.job = fmt::format("{}.{}", job->value, step->value);
    info.identity = "slurm|" + info.job;
  }
  return info;
}

}  // namespace

std::optional<LauncherInfo> detect_launcher(const EnvLookup& env) {
  std::optional<LauncherInfo> info = torchrun(env);
  if (!info) info = open_mpi(env);
  if (!info) info = slurm(env);
  if (!info) return std::nullopt;
  if (auto symm_job = env("SYMM_JOB_ID")) {
    info->job = info->job.empty() ? *symm_job : info->job + ", SYMM_JOB_ID " + *symm_job;
    info->identity += "|symm=" + *symm_job;
  }
  if (info->identity.empty()) {
    throw Error(fmt::format(
        "{} started this process but its environment does not name the job, so two jobs on "
        "this host could not be kept apart; set SYMM_JOB_ID to a value unique to this job "
        "(the same in every rank)",
        info->name));
  }
  info->identity += fmt::format("|world={}", info->world);
  return info;
}

void check_identity_as_peers_see_it(const LauncherInfo& mine) {
  std::optional<LauncherInfo> at_start;
  try {
    at_start = detect_launcher(env_lookup(read_process_environ(::getpid())));
  } catch (const Error&) {
    return;  // unreadable, or malformed at start-up and mended since: the rendezvous judges
  }
  if (at_start && at_start->identity == mine.identity) return;
  throw Error(fmt::format("this process's job identity ({} job {}) differs from the one it was started with "
                          "({}): launcher variables or SYMM_JOB_ID were changed inside the process (setenv), but "
                          "the other ranks read them from /proc/<pid>/environ, which keeps the start-up values, "
                          "and would refuse this rank; set them before the process starts (in the launcher's "
                          "command or environment)",
                          mine.name, mine.job, at_start ? at_start->name + " job " + at_start->job : "no launcher"));
}

}  // namespace symm::detail
