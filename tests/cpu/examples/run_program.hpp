#pragma once
// Runs a real program binary (posix_spawn) and captures what it printed, for tests of
// what programs do before any GPU work: no GPU is needed.
#include <chrono>
#include <string>
#include <vector>

namespace symm::test {

struct ProgramOutcome {
  int exit_code = -1;    // -1 when it could not start or was killed by a signal
  int term_signal = 0;   // the signal that ended it, 0 when it exited
  std::string output;    // stdout and stderr, interleaved (or why it could not start)
};

// Runs `program` with `args`, in this process's environment without launcher or symm rank
// variables, with `extra_env` ("NAME=value", replacing an inherited value) on top; killed
// (SIGKILL, said in the output) when it still runs after `limit`.
ProgramOutcome run_program(const std::string& program, const std::vector<std::string>& args,
                           const std::vector<std::string>& extra_env = {},
                           std::chrono::seconds limit = std::chrono::seconds(30));

}  // namespace symm::test
