#pragma once
// What the ranks started: the other members of the ranks' process group, found in /proc,
// and their end when the job ends (docs/launch-model.md, "When a rank fails").
#include <sys/types.h>

#include <chrono>
#include <vector>

namespace symm::detail {

// Live processes (zombies excluded) of process group `group`, but those in `except`.
std::vector<pid_t> process_group_members(pid_t group, const std::vector<pid_t>& except);

// Ends the members of `group` but `except`: SIGTERM to the group, SIGKILL to it where
// any is left after `grace`, then at most `grace` more. Returns those still there (stuck
// in the kernel); the caller must hold the group's id (an unreaped member) throughout.
std::vector<pid_t> end_process_group(pid_t group, const std::vector<pid_t>& except,
                                     std::chrono::milliseconds grace);

}  // namespace symm::detail
