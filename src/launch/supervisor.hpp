#pragma once
// Spawn mode: the supervisor forks the ranks (before any CUDA call), connects them with
// inherited socket pairs (a star around rank 0), and watches them. When a rank exits
// non-zero, is killed by a signal, or the job exceeds its time limit, or the
// supervisor is interrupted (SIGINT, SIGTERM, SIGHUP), it sends SIGTERM (the received
// signal when interrupted) to every remaining rank, SIGKILL after the grace period,
// reaps them all, and reports which rank failed and how.
#include <chrono>
#include <functional>

#include "symm/host/team.hpp"

namespace symm::detail {

struct SpawnPlan {
  int world = 1;
  std::chrono::milliseconds rank_timeout{0};  // 0: no limit
  std::chrono::milliseconds kill_grace{3000};
};

// Returns the exit code for main(): 0, the failing rank's code, 128 + signal number, or
// 124 when the time limit was exceeded; `interrupted_by`: the signal that interrupted the
// supervisor, 0 when none did. Never returns in the ranks.
int supervise(const SpawnPlan& plan, const std::function<int(Team&)>& rank_main, int& interrupted_by);

}  // namespace symm::detail
