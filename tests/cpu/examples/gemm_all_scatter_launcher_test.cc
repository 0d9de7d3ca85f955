// The Iris example-10 hang, designed out: a GEMM + all-scatter program started by an
// external launcher (torchrun, mpirun) must join its ranks, never spawn its own on top
// (N x N processes fighting over one rendezvous). Runs the real program; no GPU needed,
// as the refusal comes before any CUDA call.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

extern char** environ;

namespace {

struct Outcome {
  int exit_code = -1;
  std::string output;
};

// Runs the program with `extra_env` added to this environment; stdout and stderr captured.
Outcome run_program(const std::vector<std::string>& args, const std::vector<std::string>& extra_env) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  env_strings.insert(env_strings.end(), extra_env.begin(), extra_env.end());
  std::vector<std::string> arg_strings{SYMM_ALL_SCATTER_PROGRAM};
  arg_strings.insert(arg_strings.end(), args.begin(), args.end());
  std::vector<char*> argv, envp;
  for (auto& s : arg_strings) argv.push_back(s.data());
  for (auto& s : env_strings) envp.push_back(s.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);

  std::array<int, 2> pipe_fds{};
  EXPECT_EQ(::pipe(pipe_fds.data()), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  Outcome out;
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    return out;
  }
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) out.output.append(buffer, std::size_t(n));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

std::vector<std::string> torchrun_rank(int rank, int world) {
  return {"RANK=" + std::to_string(rank), "WORLD_SIZE=" + std::to_string(world),
          "LOCAL_RANK=" + std::to_string(rank), "LOCAL_WORLD_SIZE=" + std::to_string(world),
          "MASTER_ADDR=127.0.0.1", "MASTER_PORT=29500",
          "TORCHELASTIC_RUN_ID=all-scatter-test-" + std::to_string(::getpid())};
}

TEST(GemmAllScatterLauncher, RefusesToSpawnItsOwnRanksUnderTorchrun) {
  // What Iris's benchmark did under `torchrun --nproc_per_node=2`: each process started
  // ranks of its own. Both must refuse, naming the N x N processes, before any GPU work.
  for (int rank = 0; rank < 2; ++rank) {
    const Outcome out = run_program({"-r", "4", "-o", ""}, torchrun_rank(rank, 2));
    EXPECT_EQ(out.exit_code, 1) << out.output;
    EXPECT_NE(out.output.find("refusing to spawn 4 ranks (-r 4)"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("2 x 4 = 8 processes"), std::string::npos) << out.output;
    EXPECT_EQ(out.output.find("GPU 0"), std::string::npos) << "no rank may reach the GPU: " << out.output;
  }
}

TEST(GemmAllScatterLauncher, RefusesToSpawnItsOwnRanksUnderMpirun) {
  const Outcome out = run_program({"-r", "4", "-o", ""},
                                  {"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=2",
                                   "OMPI_COMM_WORLD_LOCAL_RANK=0", "OMPI_COMM_WORLD_LOCAL_SIZE=2",
                                   "OMPI_MCA_ess_base_jobid=4242"});
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("refusing to spawn 4 ranks (-r 4)"), std::string::npos) << out.output;
}

}  // namespace
