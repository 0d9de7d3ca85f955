#pragma once
// A spawned rank as the supervisor sees it: its process, how it ended, and the failure
// report it sent through its pipe (supervisor.cc).
#include <sys/types.h>

#include <optional>
#include <string>

#include "rank_runner.hpp"
#include "symm/host/unique_fd.hpp"

namespace symm::detail {

// "SIGTERM", or the signal's description where the C library has no abbreviation.
std::string signal_name(int signal);

// A rank's failure report travels through a pipe: "<lost peer or -1>\n<error message>",
// written in one piece (below PIPE_BUF, so one atomic write that never blocks); the
// supervisor reads it in RankProcess::reap.
void write_report(int fd, const RankOutcome& outcome);

struct RankProcess {
  int rank = 0;
  pid_t pid = -1;
  UniqueFd report;  // read end of the rank's report pipe
  bool running = false;
  // Rank 0 leads the ranks' process group. Its end is seen, not reaped, until whatever
  // the ranks started has been ended: while it is a zombie, the group's id cannot be
  // reused, so signalling the group reaches only the job's processes.
  bool leads_group = false;
  bool zombie = false;       // ended, still to be reaped (the group's leader)
  bool status_lost = false;  // reaped by someone else: no exit status
  int status = 0;            // as waitpid gives it
  bool reported = false;     // the rank's failure report has been read
  RankOutcome outcome;

  // True once the process has ended: reaped, or (the group's leader) seen to end.
  bool try_reap();
  // The group leader's end, once whatever the ranks started has been ended.
  void reap_zombie();
  bool failed() const;
  int exit_code() const;      // 128 + signal for a rank killed by one
  std::string how() const;    // "exited with code 1", "was killed by signal 9 (SIGKILL)"
  std::string error_note() const;  // ". Its error: ..." when the rank reported one

 private:
  void collect_report();
  bool try_see_end();
};

}  // namespace symm::detail
