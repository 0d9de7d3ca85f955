#include "supervisor.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "link.hpp"
#include "process_group.hpp"
#include "rank_process.hpp"
#include "rank_runner.hpp"
#include "socket_team.hpp"
#include "symm/common/error.hpp"
#include "symm/host/log.hpp"

namespace symm::detail {
namespace {

constexpr int kInterruptSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kTimeLimitExitCode = 124;  // as timeout(1)

std::string seconds_text(std::chrono::milliseconds duration) {
  return fmt::format("{:g} s", static_cast<double>(duration.count()) / 1000.0);
}

// The signal state the supervisor changes while it runs, restored when it returns and
// in each rank right after the fork. The signals it waits for are blocked so that
// sigtimedwait() receives them; SIGCHLD must not be ignored, or the kernel would reap
// the ranks and lose their exit status. An interrupt signal that was ignored when
// launch() was called (nohup, a background job) stays ignored.
class SignalState {
 public:
  SignalState() {
    sigemptyset(&waited_);
    sigaddset(&waited_, SIGCHLD);
    for (int signal : kInterruptSignals) {
      struct sigaction current;
      if (::sigaction(signal, nullptr, &current) == 0 && current.sa_handler != SIG_IGN) sigaddset(&waited_, signal);
    }
    struct sigaction default_action{};
    default_action.sa_handler = SIG_DFL;
    ::sigaction(SIGCHLD, &default_action, &saved_sigchld_);
    ::pthread_sigmask(SIG_BLOCK, &waited_, &saved_mask_);
  }
  ~SignalState() {
    // Drop the SIGCHLDs of our own ranks so a handler of the program never sees them.
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    const timespec zero{0, 0};
    while (::sigtimedwait(&chld, nullptr, &zero) > 0) {
    }
    restore();
  }
  SignalState(const SignalState&) = delete;
  SignalState& operator=(const SignalState&) = delete;

  void restore() {
    ::sigaction(SIGCHLD, &saved_sigchld_, nullptr);
    ::pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr);
  }
  const sigset_t& waited() const { return waited_; }

 private:
  sigset_t waited_;
  sigset_t saved_mask_;
  struct sigaction saved_sigchld_;
};

// The bootstrap sockets and report pipes created before the fork. Each rank keeps its
// own ends and closes the rest; the supervisor closes all but the report read ends.
struct Plumbing {
  std::vector<UniqueFd> hub_ends;   // [r]: rank 0's end of its socket pair with rank r
  std::vector<UniqueFd> rank_ends;  // [r]: rank r's end
  std::vector<UniqueFd> report_writers;

  Plumbing(int world, std::vector<RankProcess>& ranks)
      : hub_ends(world), rank_ends(world), report_writers(world) {
    for (int r = 0; r < world; ++r) {
      if (r > 0) {
        int pair[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
          throw Error(fmt::format("cannot create the bootstrap sockets for rank {}: {}", r, system_error_text(errno)));
        }
        hub_ends[r].reset(pair[0]);
        rank_ends[r].reset(pair[1]);
      }
      int pipe[2];
      if (::pipe2(pipe, O_CLOEXEC) != 0) {
        throw Error(fmt::format("cannot create the report pipe for rank {}: {}", r, system_error_text(errno)));
      }
      ranks[r].report.reset(pipe[0]);
      if (::fcntl(pipe[0], F_SETFL, O_NONBLOCK) != 0) {
        throw Error(fmt::format("cannot make rank {}'s report pipe non-blocking: {}", r, system_error_text(errno)));
      }
      report_writers[r].reset(pipe[1]);
    }
  }

  std::vector<UniqueFd> sockets_of(int rank) {
    std::vector<UniqueFd> sockets(hub_ends.size());
    if (rank == 0) {
      for (std::size_t r = 1; r < hub_ends.size(); ++r) sockets[r] = std::move(hub_ends[r]);
    } else {
      sockets[0] = std::move(rank_ends[rank]);
    }
    return sockets;
  }

  void close_all() {
    hub_ends.clear();
    rank_ends.clear();
    report_writers.clear();
  }
};

// Runs in the forked child; never returns.
[[noreturn]] void become_rank(int rank, int world, pid_t supervisor, pid_t group, Plumbing& plumbing,
                              std::vector<RankProcess>& ranks, SignalState& signals,
                              const std::function<int(Team&)>& rank_main) {
  // Die with the supervisor, even if it is SIGKILLed; it may have died before prctl.
  // A rank outside those guarantees could outlive the job: it refuses to run.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::setpgid(0, group) != 0) {  // group 0: rank 0 founds it
    log::error(fmt::format("rank {}: cannot tie itself to the supervisor (prctl/setpgid: {})", rank,
                           system_error_text(errno)));
    ::_exit(1);
  }
  if (::getppid() != supervisor) ::_exit(1);
  // The ranks' group is not the terminal's foreground group: with `stty tostop` a
  // write to the terminal would stop the rank, and a read would stop it for ever.
  ::signal(SIGTTOU, SIG_IGN);
  ::signal(SIGTTIN, SIG_IGN);
  signals.restore();

  std::vector<UniqueFd> sockets = plumbing.sockets_of(rank);
  UniqueFd report = std::move(plumbing.report_writers[rank]);
  plumbing.close_all();
  ranks.clear();  // the other report pipes

  enter_rank(rank, world, rank);
  RankOutcome outcome;
  try {
    auto team = make_socket_team(rank, world, std::move(sockets));
    outcome = run_rank_main(*team, rank_main);
    // Report before the team's sockets close: a peer that then fails for want of this
    // rank can only exit after the report is in place, so the supervisor can tell
    // cause from consequence.
    if (outcome.code != 0) write_report(report.get(), outcome);
  } catch (const std::exception& e) {
    log::error(e.what());
    outcome = RankOutcome{1, e.what()};
    write_report(report.get(), outcome);
  } catch (...) {  // nothing may unwind out of a rank into the caller of launch()
    outcome = RankOutcome{1, "unknown exception while setting up the rank"};
    write_report(report.get(), outcome);
  }
  std::fflush(nullptr);
  std::exit(outcome.code);
}

class Watch {
 public:
  Watch(const SpawnPlan& plan, std::vector<RankProcess>& ranks, pid_t group, const SignalState& signals)
      : plan_(plan), ranks_(ranks), group_(group), signals_(signals), start_(Clock::now()) {}

  int interrupted_by() const { return interrupted_by_; }

  // Ends every rank at once (the job cannot start), within the same bound as run()'s.
  int kill_all(int exit_code) {
    ending_ = true;
    exit_code_ = exit_code;
    kill_now();
    return run();
  }

  int run() {
    while (reap()) {
      const auto now = Clock::now();
      if (!ending_ && plan_.rank_timeout.count() > 0 && now - start_ >= plan_.rank_timeout) time_limit_exceeded();
      if (kill_at_ && now >= *kill_at_) kill_stragglers();
      if (abandon_at_ && now >= *abandon_at_) {
        abandon_unkillable();
        break;
      }
      wait_for_event();
    }
    end_leftovers();
    return exit_code_;
  }

 private:
  // Collects ranks that ended; the first failure starts ending the job. Returns whether
  // any rank still runs.
  bool reap() {
    std::vector<RankProcess*> failed;
    for (RankProcess& rank : ranks_) {
      if (rank.running && rank.try_reap() && rank.failed() && !ending_) failed.push_back(&rank);
    }
    if (!failed.empty()) {
      add_failing_cause(failed);
      report_failures(failed, std::any_of(ranks_.begin(), ranks_.end(), [](auto& r) { return r.running; }));
    }
    return std::any_of(ranks_.begin(), ranks_.end(), [](const RankProcess& r) { return r.running; });
  }

  // When every rank found dead failed because a peer vanished, follow them to that
  // peer: it may still be exiting (a rank killed by a signal is reaped a moment after
  // its sockets close). Wait a moment for it, so that it, not its victims, is named.
  void add_failing_cause(std::vector<RankProcess*>& failed) {
    const auto give_up = Clock::now() + std::chrono::seconds(2);
    const int world = static_cast<int>(ranks_.size());
    for (std::size_t i = 0; i < failed.size(); ++i) {
      if (!std::all_of(failed.begin(), failed.end(), [](auto* r) { return r->outcome.peer_lost(); })) return;
      const int lost = failed[i]->outcome.lost_peer;
      if (lost >= world || !ranks_[lost].running) continue;
      RankProcess& peer = ranks_[lost];
      while (!peer.try_reap() && Clock::now() < give_up) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      if (!peer.running && peer.failed()) failed.push_back(&peer);
    }
  }

  // Several ranks may be found dead at once; the cause is the one that did not merely
  // lose a peer, preferably killed by a signal, else the lowest rank.
  void report_failures(std::vector<RankProcess*>& failed, bool others_running) {
    std::stable_sort(failed.begin(), failed.end(), [](const RankProcess* a, const RankProcess* b) {
      auto key = [](const RankProcess* r) { return std::tuple(r->outcome.peer_lost(), !WIFSIGNALED(r->status), r->rank); };
      return key(a) < key(b);
    });
    const int world = static_cast<int>(ranks_.size());
    for (const RankProcess* rank : failed) {
      const bool cause = rank == failed.front();
      log::error(fmt::format("rank {}/{} (pid {}) {}{}{}{}", rank->rank, world, rank->pid, cause ? "" : "also ",
                             rank->how(), cause && others_running ? "; ending the other ranks" : "",
                             rank->error_note()));
    }
    begin_ending(SIGTERM, failed.front()->exit_code());
  }

  void time_limit_exceeded() {
    std::vector<int> running;
    for (const RankProcess& rank : ranks_) {
      if (rank.running) running.push_back(rank.rank);
    }
    const int world = static_cast<int>(ranks_.size());
    const std::string limit = seconds_text(plan_.rank_timeout);
    if (running.size() == 1) {
      const RankProcess& rank = ranks_[running.front()];
      log::error(fmt::format("rank {}/{} (pid {}) exceeded the time limit of {} (--rank_timeout, "
                             "SYMM_RANK_TIMEOUT_S); ending it", rank.rank, world, rank.pid, limit));
    } else {
      log::error(fmt::format("{} (of {}) exceeded the time limit of {} (--rank_timeout, "
                             "SYMM_RANK_TIMEOUT_S); ending them", describe_ranks(running), world, limit));
    }
    begin_ending(SIGTERM, kTimeLimitExitCode);
  }

  void kill_stragglers() {
    const int world = static_cast<int>(ranks_.size());
    for (const RankProcess& rank : ranks_) {
      if (rank.running) {
        log::warn(fmt::format("rank {}/{} (pid {}) did not end within {} of {}; killing it", rank.rank, world,
                              rank.pid, seconds_text(plan_.kill_grace), signal_name(ending_signal_)));
      }
    }
    kill_now();
  }

  // SIGKILL, and a bound on waiting for its effect: a process stuck in the kernel (a GPU
  // driver call, a debugger holding it) outlives SIGKILL until it returns, if ever.
  void kill_now() {
    signal_ranks(SIGKILL);
    kill_at_.reset();
    abandon_at_ = Clock::now() + plan_.kill_grace;
  }

  void abandon_unkillable() {
    const int world = static_cast<int>(ranks_.size());
    for (RankProcess& rank : ranks_) {
      if (!rank.running) continue;
      log::error(fmt::format("rank {}/{} (pid {}) is still there {} after SIGKILL: it is stuck in the kernel (a "
                             "GPU driver call, or a debugger holding it); leaving it behind",
                             rank.rank, world, rank.pid, seconds_text(plan_.kill_grace)));
      rank.running = false;
    }
    exit_code_ = std::max(exit_code_, 1);
  }

  // Once the ranks are gone, what they started and left in their group ends too (the
  // job's processes end with it, and none keeps a GPU's memory), then the leader is reaped.
  // Only while the leader is a zombie is the group's id sure to be the job's.
  void end_leftovers() {
    RankProcess& leader = ranks_.front();
    if (group_ <= 0 || !leader.zombie) return;
    std::vector<pid_t> ranks;
    for (const RankProcess& rank : ranks_) ranks.push_back(rank.pid);  // left-behind ranks were reported
    if (const std::vector<pid_t> left = process_group_members(group_, ranks); !left.empty()) {
      log::warn(fmt::format("{} process{} the ranks started outlived them (pid {}); ending {}", left.size(),
                            left.size() == 1 ? "" : "es", fmt::join(left, ", "), left.size() == 1 ? "it" : "them"));
      if (const std::vector<pid_t> stuck = end_process_group(group_, ranks, plan_.kill_grace); !stuck.empty())
        log::error(fmt::format("pid {} of the ranks' process group {} still there {} after SIGKILL; leaving {} behind",
                               fmt::join(stuck, ", "), stuck.size() == 1 ? "is" : "are",
                               seconds_text(plan_.kill_grace), stuck.size() == 1 ? "it" : "them"));
    }
    leader.reap_zombie();
  }

  void begin_ending(int signal, int exit_code) {
    ending_ = true;
    ending_signal_ = signal;
    exit_code_ = exit_code;
    signal_ranks(signal);
    kill_at_ = Clock::now() + plan_.kill_grace;
  }

  // Signals every running rank, and through their process group whatever they started.
  void signal_ranks(int signal) {
    bool any = false;
    for (const RankProcess& rank : ranks_) {
      if (rank.running) {
        ::kill(rank.pid, signal);
        any = true;
      }
    }
    // While a rank is unreaped its process group exists, so the id cannot be reused.
    if (any && group_ > 0) ::kill(-group_, signal);
  }

  void wait_for_event() {
    auto next = Clock::now() + std::chrono::seconds(1);  // a backstop; signals wake us sooner
    if (!ending_ && plan_.rank_timeout.count() > 0) next = std::min(next, start_ + plan_.rank_timeout);
    if (kill_at_) next = std::min(next, *kill_at_);
    if (abandon_at_) next = std::min(next, *abandon_at_);
    const auto wait = std::max(std::chrono::nanoseconds(0), next - Clock::now());
    const timespec timeout{static_cast<time_t>(wait.count() / 1000000000), static_cast<long>(wait.count() % 1000000000)};
    const int signal = ::sigtimedwait(&signals_.waited(), nullptr, &timeout);
    if (signal <= 0 || signal == SIGCHLD) return;
    if (!ending_) {
      log::error(fmt::format("interrupted by {}; ending the ranks", signal_name(signal)));
      interrupted_by_ = signal;
      begin_ending(signal, 128 + signal);
    } else {
      log::error(fmt::format("{} again: killing the ranks now", signal_name(signal)));
      kill_now();
    }
  }

  const SpawnPlan& plan_;
  std::vector<RankProcess>& ranks_;
  pid_t group_;
  const SignalState& signals_;
  Clock::time_point start_;
  bool ending_ = false;
  int ending_signal_ = SIGTERM;
  int exit_code_ = 0;
  int interrupted_by_ = 0;
  std::optional<Clock::time_point> kill_at_;
  std::optional<Clock::time_point> abandon_at_;
};

}  // namespace

int supervise(const SpawnPlan& plan, const std::function<int(Team&)>& rank_main, int& interrupted_by) {
  SignalState signals;
  std::vector<RankProcess> ranks(static_cast<std::size_t>(plan.world));
  Plumbing plumbing(plan.world, ranks);
  std::fflush(nullptr);  // or the ranks would print what the supervisor buffered
  const pid_t supervisor = ::getpid();
  pid_t group = 0;
  for (int r = 0; r < plan.world; ++r) {
    ranks[r].rank = r;
    const pid_t pid = ::fork();
    if (pid == 0) become_rank(r, plan.world, supervisor, group, plumbing, ranks, signals, rank_main);
    if (pid < 0) {
      log::error(fmt::format("cannot start rank {}: fork failed: {}", r, system_error_text(errno)));
      plumbing.close_all();
      return Watch(plan, ranks, group, signals).kill_all(1);
    }
    // Also set here, so the group is in place whichever of parent and child runs first.
    ::setpgid(pid, group == 0 ? pid : group);
    if (group == 0) group = pid;
    ranks[r].pid = pid;
    ranks[r].running = true;
    ranks[r].leads_group = pid == group;
  }
  plumbing.close_all();
  Watch watch(plan, ranks, group, signals);
  const int code = watch.run();
  interrupted_by = watch.interrupted_by();
  return code;
}

}  // namespace symm::detail
