#include "rank_process.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "env.hpp"

namespace symm::detail {
namespace {

constexpr std::size_t kReportLimit = 2048;  // below PIPE_BUF: one atomic, non-blocking write

// nullopt until the rank has written its report.
std::optional<RankOutcome> read_report(int fd) {
  char buffer[kReportLimit];
  ssize_t n;
  do {
    n = ::read(fd, buffer, sizeof buffer);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return std::nullopt;
  RankOutcome outcome;
  std::string text(buffer, static_cast<std::size_t>(n));
  outcome.code = 1;
  outcome.lost_peer = static_cast<int>(parse_integer(text.substr(0, text.find('\n'))).value_or(-1));
  if (auto newline = text.find('\n'); newline != std::string::npos) {
    outcome.error = text.substr(newline + 1);
    outcome.error = outcome.error.substr(0, outcome.error.find('\n'));  // first line is enough
  }
  return outcome;
}

}  // namespace

std::string signal_name(int signal) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
  if (const char* abbrev = ::sigabbrev_np(signal)) return std::string("SIG") + abbrev;
#endif
  return ::strsignal(signal);
}

void write_report(int fd, const RankOutcome& outcome) {
  std::string text = fmt::format("{}\n{}", outcome.lost_peer, outcome.error);
  if (text.size() > kReportLimit) text.resize(kReportLimit);
  [[maybe_unused]] ssize_t ignored = ::write(fd, text.data(), text.size());
}

void RankProcess::collect_report() {
  if (reported) return;
  if (auto report_read = read_report(report.get())) {
    outcome = *report_read;
    reported = true;
  }
}

bool RankProcess::try_reap() {
  if (leads_group) return try_see_end();
  const pid_t result = ::waitpid(pid, &status, WNOHANG);
  if (result == 0 || (result < 0 && errno == EINTR)) return false;
  running = false;
  status_lost = result < 0;
  collect_report();
  return true;
}

// Its exit status, leaving it a zombie (WNOWAIT).
bool RankProcess::try_see_end() {
  siginfo_t info{};
  const int result = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  if ((result == 0 && info.si_pid == 0) || (result < 0 && errno == EINTR)) return false;
  running = false;
  status_lost = result < 0;
  zombie = result == 0;
  if (zombie)
    status = info.si_code == CLD_EXITED ? W_EXITCODE(info.si_status, 0)
                                        : W_EXITCODE(0, info.si_status) | (info.si_code == CLD_DUMPED ? WCOREFLAG : 0);
  collect_report();
  return true;
}

void RankProcess::reap_zombie() {
  if (!zombie) return;
  int ignored = 0;
  while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
  }
  zombie = false;
}

bool RankProcess::failed() const { return status_lost || !WIFEXITED(status) || WEXITSTATUS(status) != 0; }

int RankProcess::exit_code() const {
  if (status_lost) return 1;
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

std::string RankProcess::how() const {
  if (status_lost) return "ended, but its exit status was collected elsewhere";
  if (WIFSIGNALED(status))
    return fmt::format("was killed by signal {} ({}){}", WTERMSIG(status), signal_name(WTERMSIG(status)),
                       WCOREDUMP(status) ? ", core dumped" : "");
  return fmt::format("exited with code {}", WEXITSTATUS(status));
}

std::string RankProcess::error_note() const {
  return outcome.error.empty() ? "" : ". Its error: " + outcome.error.substr(0, 300);
}

}  // namespace symm::detail
