#pragma once
// Running a test body on several ranks from inside a GoogleTest case.
//
// The test process is the supervisor: symm::launch forks the ranks, each builds a
// symm::Runtime and runs the body; the test asserts on the exit code (and, where it
// matters, on what the ranks printed). Ranks may share one GPU: they take turns, so
// bodies scale their iteration counts with scaled().
#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_presence.hpp"
#include "symm/host/launch.hpp"
#include "symm/host/runtime.hpp"

namespace symm::test {

inline constexpr std::size_t kTestHeapBytes = std::size_t{256} << 20;

using RankBody = std::function<int(Runtime&)>;

// Runs body on `ranks` ranks; returns the launch's exit code (0: every body returned 0).
int run_on_ranks(int ranks, const RankBody& body, std::size_t heap_bytes = kTestHeapBytes);

struct CapturedRun {
  int exit_code = 0;
  std::vector<std::string> output;  // per rank: stdout and stderr, device printf included
  double seconds = 0;               // wall time of the whole launch
};

// As run_on_ranks, with each rank's stdout and stderr captured.
CapturedRun run_on_ranks_captured(int ranks, const RankBody& body,
                                  std::size_t heap_bytes = kTestHeapBytes);

// `full` when every rank has a GPU of its own, `shared` when ranks take turns on one.
int scaled(const Runtime& rt, int full, int shared);

// Counts failed checks in a rank body and logs the first few; exit_code() is 0 when
// none failed.
class Failures {
 public:
  explicit Failures(std::string_view suite) : suite_(suite) {}
  void check(bool ok, const std::string& what);
  int count() const { return count_; }
  int exit_code() const;

 private:
  std::string suite_;
  int count_ = 0;
};

}  // namespace symm::test
