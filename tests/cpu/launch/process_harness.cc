#include "process_harness.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace symm::test {
namespace {

using Clock = std::chrono::steady_clock;

// Orphaned ranks (their supervisor killed) are re-parented to this process, so that
// they can be observed and reaped here instead of by init.
void become_subreaper() {
  static const bool done = [] {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    return true;
  }();
  (void)done;
}

}  // namespace

DriverProcess::DriverProcess(const std::vector<std::string>& args, const EnvOverrides& overrides) {
  become_subreaper();
  std::vector<std::string> argv_strings{SYMM_LAUNCH_DRIVER_PATH};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<std::string> env_strings = environment_strings(merged_environment(overrides));
  std::vector<char*> argv, envp;
  for (auto& s : argv_strings) argv.push_back(s.data());
  for (auto& s : env_strings) envp.push_back(s.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);

  int pipe[2];
  if (::pipe2(pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  start_ = Clock::now();
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::setpgid(0, 0);  // signals meant for the test never reach the driver, and back
    ::dup2(pipe[1], STDOUT_FILENO);
    ::dup2(pipe[1], STDERR_FILENO);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(pipe[1]);
  output_fd_.reset(pipe[0]);
  ::fcntl(pipe[0], F_SETFL, O_NONBLOCK);
}

DriverProcess::~DriverProcess() {
  if (!exited_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

int DriverProcess::exit_code() const { return exited_ && WIFEXITED(status_) ? WEXITSTATUS(status_) : -1; }
int DriverProcess::term_signal() const { return exited_ && WIFSIGNALED(status_) ? WTERMSIG(status_) : 0; }
void DriverProcess::signal(int sig) const { ::kill(pid_, sig); }

bool DriverProcess::poll_exit() {
  if (!exited_ && ::waitpid(pid_, &status_, WNOHANG) == pid_) {
    exited_ = true;
    seconds_ = std::chrono::duration<double>(Clock::now() - start_).count();
  }
  return exited_;
}

void DriverProcess::read_output() {
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(output_fd_.get(), buffer, sizeof buffer);
    if (n > 0) {
      output_.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) output_closed_ = true;
    if (n < 0 && errno == EINTR) continue;
    return;
  }
}

bool DriverProcess::wait_all(const std::vector<DriverProcess*>& processes, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  for (;;) {
    std::vector<pollfd> polled;
    bool all_done = true;
    for (DriverProcess* p : processes) {
      p->poll_exit();
      if (!p->output_closed_) polled.push_back({p->output_fd_.get(), POLLIN, 0});
      all_done = all_done && p->exited_ && p->output_closed_;
    }
    if (all_done) return true;
    if (Clock::now() >= deadline) break;
    ::poll(polled.data(), polled.size(), 20);
    for (DriverProcess* p : processes) {
      if (!p->output_closed_) p->read_output();
    }
  }
  for (DriverProcess* p : processes) {
    if (!p->exited_) {
      ::kill(p->pid_, SIGKILL);
      ::waitpid(p->pid_, &p->status_, 0);
      p->exited_ = true;
      p->seconds_ = std::chrono::duration<double>(Clock::now() - p->start_).count();
    }
    p->read_output();
  }
  return false;
}

DriverResult run_driver(const std::vector<std::string>& args, const EnvOverrides& env) {
  DriverProcess process(args, env);
  const bool finished = process.wait(30s);
  return {process.exit_code(), process.term_signal(), process.output(), process.seconds(), finished};
}

bool process_gone(pid_t pid) {
  int status;
  const pid_t reaped = ::waitpid(pid, &status, WNOHANG);
  if (reaped == pid) return true;
  if (reaped == 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return true;
  const char state = text[paren + 2];
  return state == 'Z' || state == 'X';
}

bool all_gone_within(const std::vector<pid_t>& pids, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  for (;;) {
    bool all = true;
    for (pid_t pid : pids) all = (pid <= 0 || process_gone(pid)) && all;
    if (all) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
}

std::vector<pid_t> wait_for_pid_files(const std::string& dir, int count, std::chrono::milliseconds limit,
                                      const std::string& role) {
  const auto deadline = Clock::now() + limit;
  for (;;) {
    std::vector<pid_t> pids;
    for (int r = 0; r < count; ++r) {
      std::ifstream file(dir + "/" + role + std::to_string(r) + ".pid");
      pid_t pid = 0;
      if (file >> pid && pid > 0) pids.push_back(pid);
    }
    if (static_cast<int>(pids.size()) == count) return pids;
    if (Clock::now() >= deadline) return {};
    std::this_thread::sleep_for(20ms);
  }
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "symm-launch-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

int count_occurrences(const std::string& text, const std::string& what) {
  int count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++count;
  return count;
}

}  // namespace symm::test
