#include "run_program.hpp"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "test_environment.hpp"

namespace symm::test {

ProgramOutcome run_program(const std::string& program, const std::vector<std::string>& args,
                           const std::vector<std::string>& extra_env, std::chrono::seconds limit) {
  EnvOverrides overrides;
  for (const std::string& setting : extra_env) {
    const auto eq = setting.find('=');
    overrides[setting.substr(0, eq)] = eq == std::string::npos ? "" : setting.substr(eq + 1);
  }
  std::vector<std::string> env_strings = environment_strings(merged_environment(overrides));
  std::vector<std::string> arg_strings{program};
  arg_strings.insert(arg_strings.end(), args.begin(), args.end());
  std::vector<char*> argv, envp;
  for (auto& s : arg_strings) argv.push_back(s.data());
  for (auto& s : env_strings) envp.push_back(s.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);

  ProgramOutcome out;
  std::array<int, 2> pipe_fds{};
  if (::pipe(pipe_fds.data()) != 0) {
    out.output = std::string("run_program: pipe failed: ") + std::strerror(errno);
    return out;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    out.output = "run_program: cannot start " + program + ": " + std::strerror(spawned);
    return out;
  }
  // Output until the program closes it, within the limit: a hung program is killed, not
  // waited for until CTest's timeout.
  const auto deadline = std::chrono::steady_clock::now() + limit;
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd readable{pipe_fds[0], POLLIN, 0};
    const int ready = left.count() > 0 ? ::poll(&readable, 1, static_cast<int>(left.count())) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      ::kill(pid, SIGKILL);
      out.output += "\n[run_program: still running after " + std::to_string(limit.count()) + " s: killed]";
      break;
    }
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n > 0) {
      out.output.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) out.term_signal = WTERMSIG(status);
  return out;
}

}  // namespace symm::test
