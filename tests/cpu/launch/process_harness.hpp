#pragma once
// Runs the launch test driver as a separate program and observes it from outside: exit
// status, output, and whether every process of the job is gone afterwards.
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "symm/host/unique_fd.hpp"
#include "test_environment.hpp"

namespace symm::test {

using namespace std::chrono_literals;

class DriverProcess {
 public:
  explicit DriverProcess(const std::vector<std::string>& args, const EnvOverrides& env = {});
  ~DriverProcess();  // kills and reaps the process if it still runs
  DriverProcess(const DriverProcess&) = delete;
  DriverProcess& operator=(const DriverProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool exited() const { return exited_; }
  int exit_code() const;    // -1 when killed by a signal
  int term_signal() const;  // 0 when it exited
  const std::string& output() const { return output_; }  // stdout and stderr, interleaved
  // True once every process holding the output pipe (the ranks too) has closed it.
  bool output_closed() const { return output_closed_; }
  double seconds() const { return seconds_; }

  void signal(int sig) const;

  // Waits until every process exits and their outputs close; a process still running
  // at the limit is killed (and the wait returns false).
  static bool wait_all(const std::vector<DriverProcess*>& processes, std::chrono::milliseconds limit);
  bool wait(std::chrono::milliseconds limit = 30s) { return wait_all({this}, limit); }

 private:
  bool poll_exit();
  void read_output();

  pid_t pid_ = -1;
  UniqueFd output_fd_;
  std::string output_;
  bool exited_ = false;
  bool output_closed_ = false;
  int status_ = 0;
  std::chrono::steady_clock::time_point start_;
  double seconds_ = 0;
};

// Runs the driver to completion (limit: 30 s).
struct DriverResult {
  int exit_code;
  int term_signal;
  std::string output;
  double seconds;
  bool finished;
};
DriverResult run_driver(const std::vector<std::string>& args, const EnvOverrides& env = {});

// True when pid no longer runs (a zombie counts as gone; orphans adopted by this
// process, a child subreaper, are reaped here).
bool process_gone(pid_t pid);
bool all_gone_within(const std::vector<pid_t>& pids, std::chrono::milliseconds limit);

// Waits for <role><r>.pid files written by the driver's ranks (--pid_dir; role "rank") or
// the processes they started (role "child"); empty on timeout.
std::vector<pid_t> wait_for_pid_files(const std::string& dir, int count, std::chrono::milliseconds limit,
                                      const std::string& role = "rank");

class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

int count_occurrences(const std::string& text, const std::string& what);

}  // namespace symm::test
