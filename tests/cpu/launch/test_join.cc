// Join mode: the test plays the external launcher, starting every rank itself with the
// environment torchrun, Open MPI or Slurm would give it.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "launcher_env.hpp"
#include "process_harness.hpp"
#include "rendezvous.hpp"
#include "symm/common/error.hpp"

namespace {

using namespace symm::test;
using symm::detail::LauncherInfo;

// Job names unique to this test process (and, for torchrun, a run id naming this
// process), so test cases running in parallel never share a rendezvous.
std::string unique_port() {
  static std::atomic<int> next{0};
  return std::to_string(20000 + next++);
}
std::string unique_id() {
  static std::atomic<int> next{0};
  return fmt::format("{}{:03}", ::getpid(), next++);
}
const std::string kRunId = fmt::format("test-{}", ::getpid());

using EnvFor = std::function<EnvOverrides(int rank)>;

EnvFor torchrun(int world, const std::string& port, int local_world = -1) {
  return [=](int rank) -> EnvOverrides {
    return {{"RANK", std::to_string(rank)},
            {"WORLD_SIZE", std::to_string(world)},
            {"LOCAL_RANK", std::to_string(rank)},
            {"LOCAL_WORLD_SIZE", std::to_string(local_world < 0 ? world : local_world)},
            {"MASTER_ADDR", "127.0.0.1"},
            {"MASTER_PORT", port},
            {"TORCHELASTIC_RUN_ID", kRunId},
            {"TORCHELASTIC_RESTART_COUNT", "0"}};
  };
}

EnvFor open_mpi(int world, const std::string& job) {
  return [=](int rank) -> EnvOverrides {
    return {{"OMPI_COMM_WORLD_RANK", std::to_string(rank)},       {"OMPI_COMM_WORLD_SIZE", std::to_string(world)},
            {"OMPI_COMM_WORLD_LOCAL_RANK", std::to_string(rank)}, {"OMPI_COMM_WORLD_LOCAL_SIZE", std::to_string(world)},
            {"OMPI_MCA_ess_base_jobid", job}};
  };
}

EnvFor slurm(int world, const std::string& job, int nodes = 1) {
  return [=](int rank) -> EnvOverrides {
    return {{"SLURM_PROCID", std::to_string(rank)},   {"SLURM_LOCALID", std::to_string(rank)},
            {"SLURM_NTASKS", std::to_string(world)},  {"SLURM_STEP_NUM_TASKS", std::to_string(world)},
            {"SLURM_JOB_ID", job},                    {"SLURM_STEP_ID", "0"},
            {"SLURM_NNODES", std::to_string(nodes)},  {"SLURM_STEP_NUM_NODES", std::to_string(nodes)}};
  };
}

using Job = std::vector<std::unique_ptr<DriverProcess>>;

void start_ranks(Job& job, const EnvFor& env, const std::vector<int>& ranks, const std::vector<std::string>& args) {
  for (int rank : ranks) job.push_back(std::make_unique<DriverProcess>(args, env(rank)));
}

bool wait_job(Job& job, std::chrono::milliseconds limit = 30s) {
  std::vector<DriverProcess*> all;
  for (auto& p : job) all.push_back(p.get());
  return DriverProcess::wait_all(all, limit);
}

std::vector<int> ranks_upto(int world) {
  std::vector<int> ranks(world);
  for (int r = 0; r < world; ++r) ranks[r] = r;
  return ranks;
}

void expect_collectives_ok(const Job& job, int world, int tag, const std::string& joined) {
  for (int r = 0; r < world; ++r) {
    const std::string& out = job[r]->output();
    EXPECT_EQ(job[r]->exit_code(), 0) << out;
    EXPECT_NE(out.find(fmt::format("[{}/{}] joined external launcher {}", r, world, joined)), std::string::npos) << out;
    EXPECT_NE(out.find(fmt::format("[{}/{}] collectives ok (job {}, world {})", r, world, tag, world)),
              std::string::npos)
        << out;
  }
}

TEST(Join, Torchrun) {
  const int world = 3;
  const std::string port = unique_port();
  Job job;
  start_ranks(job, torchrun(world, port), ranks_upto(world), {"--mode", "collectives", "--tag", "11"});
  ASSERT_TRUE(wait_job(job));
  expect_collectives_ok(job, world, 11,
                        fmt::format("torchrun (job run {}, master 127.0.0.1:{}, restart 0)", kRunId, port));
}

TEST(Join, OpenMpi) {
  const std::string jobid = "mpi" + unique_id();
  Job job;
  start_ranks(job, open_mpi(2, jobid), ranks_upto(2), {"--mode", "collectives", "--tag", "12"});
  ASSERT_TRUE(wait_job(job));
  expect_collectives_ok(job, 2, 12, fmt::format("Open MPI (job {})", jobid));
}

TEST(Join, Slurm) {
  const std::string jobid = unique_id();
  Job job;
  start_ranks(job, slurm(4, jobid), ranks_upto(4), {"--mode", "collectives", "--tag", "13"});
  ASSERT_TRUE(wait_job(job));
  expect_collectives_ok(job, 4, 13, fmt::format("Slurm (job {}.0)", jobid));
}

// A program that sets its job identity with setenv before symm::launch: its peers read
// the identity it was started with, from /proc, and would refuse it after waiting out the
// bootstrap time limit. Each rank says so at once instead.
TEST(Join, AJobIdentityChangedInsideTheProcessIsRefusedAtOnce) {
  const std::string port = unique_port();
  Job job;
  start_ranks(job, torchrun(2, port), ranks_upto(2), {"--mode", "collectives", "--setenv", "SYMM_JOB_ID=late"});
  ASSERT_TRUE(wait_job(job, 20s));
  for (const auto& rank : job) {
    EXPECT_EQ(rank->exit_code(), 1) << rank->output();
    EXPECT_NE(rank->output().find("were changed inside the process (setenv)"), std::string::npos) << rank->output();
    EXPECT_LT(rank->seconds(), 10.0) << "said at once, not after the bootstrap time limit";
  }
}

// The pid files a process's ranks wrote into dir: rank number -> pid.
std::map<int, pid_t> pid_files_in(const std::string& dir) {
  std::map<int, pid_t> pids;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    int rank = -1;
    pid_t pid = 0;
    std::ifstream file(entry.path());
    if (std::sscanf(entry.path().filename().c_str(), "rank%d.pid", &rank) == 1 && file >> pid) pids[rank] = pid;
  }
  return pids;
}

TEST(Join, AcceptsARankCountEqualToTheLaunchers) {
  // The Iris case: the program's own default (-r 2) under torchrun with 2 processes.
  // Each process must be its rank itself: had each spawned its own 2 ranks (the hang of
  // Iris example 10), both would still exit 0, but with 2 x 2 rank processes.
  const int world = 2;
  const std::string port = unique_port();
  std::vector<std::unique_ptr<TempDir>> pid_dirs;
  Job job;
  for (int r = 0; r < world; ++r) {
    pid_dirs.push_back(std::make_unique<TempDir>());
    start_ranks(job, torchrun(world, port), {r}, {"-r", "2", "--tag", "14", "--pid_dir", pid_dirs[r]->path()});
  }
  ASSERT_TRUE(wait_job(job));
  expect_collectives_ok(job, world, 14,
                        fmt::format("torchrun (job run {}, master 127.0.0.1:{}, restart 0)", kRunId, port));
  for (int r = 0; r < world; ++r) {
    const std::map<int, pid_t> one_rank_in_this_process{{r, job[r]->pid()}};
    EXPECT_EQ(pid_files_in(pid_dirs[r]->path()), one_rank_in_this_process) << job[r]->output();
    EXPECT_EQ(count_occurrences(job[r]->output(), "collectives ok"), 1) << job[r]->output();
  }
}

// A main function returning 256 would exit with status 0 (8 bits): it exits with 1.
TEST(Join, MainReturningAnOutOfRangeCodeFails) {
  Job job;
  start_ranks(job, torchrun(2, unique_port()), ranks_upto(2),
              {"--mode", "fail", "--fail", "exit256", "--fail_rank", "1", "--others", "exit"});
  ASSERT_TRUE(wait_job(job, 15s));
  EXPECT_EQ(job[0]->exit_code(), 0) << job[0]->output();
  EXPECT_EQ(job[1]->exit_code(), 1) << job[1]->output();
  EXPECT_NE(job[1]->output().find("returned 256, which is not an exit status"), std::string::npos)
      << job[1]->output();
}

TEST(Join, RefusesToSpawnInsideALauncher) {
  Job job;
  start_ranks(job, torchrun(2, unique_port()), ranks_upto(2), {"-r", "4"});
  ASSERT_TRUE(wait_job(job, 15s));
  for (auto& p : job) {
    EXPECT_EQ(p->exit_code(), 1) << p->output();
    EXPECT_NE(p->output().find("refusing to spawn 4 ranks (-r 4)"), std::string::npos) << p->output();
    EXPECT_NE(p->output().find("2 x 4 = 8 processes"), std::string::npos) << p->output();
    EXPECT_EQ(p->output().find("collectives ok"), std::string::npos) << p->output();
  }
}

TEST(Join, ASingleProcessLauncherMaySpawn) {
  Job job;
  start_ranks(job, torchrun(1, unique_port()), {0}, {"-r", "3", "--tag", "15"});
  ASSERT_TRUE(wait_job(job));
  EXPECT_EQ(job[0]->exit_code(), 0) << job[0]->output();
  EXPECT_EQ(count_occurrences(job[0]->output(), "collectives ok (job 15, world 3)"), 3) << job[0]->output();
}

TEST(Join, RefusesRanksOnSeveralHosts) {
  const EnvFor mpi_on_two_hosts = [](int rank) {
    auto env = open_mpi(4, "multi" + unique_id())(rank);
    env["OMPI_COMM_WORLD_LOCAL_SIZE"] = "2";
    return env;
  };
  Job job;
  start_ranks(job, torchrun(4, unique_port(), /*local_world=*/2), {0}, {});
  start_ranks(job, mpi_on_two_hosts, {0}, {});
  start_ranks(job, slurm(4, unique_id(), /*nodes=*/2), {0}, {});
  ASSERT_TRUE(wait_job(job, 15s));
  for (auto& p : job) {
    EXPECT_EQ(p->exit_code(), 1) << p->output();
    EXPECT_NE(p->output().find("on more than one host"), std::string::npos) << p->output();
  }
}

symm::detail::EnvMap env_map(const EnvOverrides& overrides) {
  auto merged = merged_environment(overrides);
  return symm::detail::EnvMap(merged.begin(), merged.end());
}

bool wait_for_file(const std::string& path, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  struct stat info;
  while (::stat(path.c_str(), &info) != 0) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

TEST(Join, RendezvousRefusesAProcessOutsideTheJob) {
  const auto env = torchrun(2, unique_port());
  Job job;
  start_ranks(job, env, {0}, {"--tag", "16"});
  const auto rank1_env = env_map(env(1));
  const LauncherInfo claimed = *symm::detail::detect_launcher(symm::detail::env_lookup(rank1_env));
  const auto place = symm::detail::rendezvous_place(claimed.identity, symm::detail::env_lookup(rank1_env));
  ASSERT_TRUE(wait_for_file(place.socket, 15s)) << "rank 0 never listened at " << place.socket;

  // This test process knows the job's name, path and protocol, and claims to be rank 1,
  // but the launcher did not start it: rank 0 must turn it away.
  try {
    symm::detail::rendezvous_join(claimed, place, 5s);
    FAIL() << "a process outside the job was admitted";
  } catch (const symm::Error& e) {
    EXPECT_NE(std::string(e.what()).find("refused this process"), std::string::npos) << e.what();
  }

  start_ranks(job, env, {1}, {"--tag", "16"});  // the real rank 1 is still welcome
  ASSERT_TRUE(wait_job(job));
  for (auto& p : job) EXPECT_EQ(p->exit_code(), 0) << p->output();
  EXPECT_NE(job[0]->output().find("rendezvous: refused a connection"), std::string::npos) << job[0]->output();
  EXPECT_FALSE(std::filesystem::exists(place.directory)) << "rank 0 removes the rendezvous when done";
}

TEST(Join, TwoSameLookingJobsAtOnceDoNotInterfere) {
  // Identical launcher variables except the master port, ranks started interleaved.
  const int world = 3;
  const auto first_env = torchrun(world, unique_port());
  const auto second_env = torchrun(world, unique_port());
  Job first, second;
  for (int r = world - 1; r >= 0; --r) {
    start_ranks(first, first_env, {r}, {"--tag", "21", "--iterations", "4"});
    start_ranks(second, second_env, {r}, {"--tag", "22", "--iterations", "4"});
  }
  std::reverse(first.begin(), first.end());
  std::reverse(second.begin(), second.end());
  std::vector<DriverProcess*> all;
  for (auto* job : {&first, &second}) {
    for (auto& p : *job) all.push_back(p.get());
  }
  ASSERT_TRUE(DriverProcess::wait_all(all, 30s));
  expect_collectives_ok(first, world, 21, "torchrun");
  expect_collectives_ok(second, world, 22, "torchrun");
}

TEST(Join, RendezvousTimesOutNamingTheMissingRank) {
  const auto env = torchrun(3, unique_port());
  const EnvFor short_timeout = [&](int rank) {
    auto vars = env(rank);
    vars["SYMM_BOOTSTRAP_TIMEOUT_MS"] = "700";
    return vars;
  };
  Job job;
  start_ranks(job, short_timeout, {0, 1}, {});  // rank 2 never starts
  ASSERT_TRUE(wait_job(job, 20s));
  const std::string& hub = job[0]->output();
  EXPECT_EQ(job[0]->exit_code(), 1) << hub;
  EXPECT_NE(hub.find("timed out after 700 ms: rank 2 of 3 did not join"), std::string::npos) << hub;
  EXPECT_NE(job[1]->exit_code(), 0) << job[1]->output();
}

}  // namespace
