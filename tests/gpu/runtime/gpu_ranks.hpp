#pragma once
// Running a test body on several ranks through symm::launch, for the gpu tier (ranks
// share one GPU) and the multigpu tier (ranks spread over SYMM_TEST_GPUS GPUs).
//
// The same sources build both tiers; SYMM_TEST_GPUS (1 or 2) says how many GPUs the
// tier needs, and SYMM_SUITE names the suites apart ("HeapExchange_1gpu").
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>

#include "gpu_presence.hpp"
#include "symm/common/error.hpp"
#include "symm/host/launch.hpp"

#ifndef SYMM_TEST_GPUS
#error "define SYMM_TEST_GPUS (the number of GPUs this test tier needs)"
#endif
#define SYMM_SUITE_JOIN(name, gpus) name##_##gpus##gpu
#define SYMM_SUITE_EXPAND(name, gpus) SYMM_SUITE_JOIN(name, gpus)
#define SYMM_SUITE(name) SYMM_SUITE_EXPAND(name, SYMM_TEST_GPUS)

namespace symm::testing {

// Runs body on `ranks` ranks (round-robin on the GPUs) and returns launch()'s exit code:
// 0 only when every rank returned normally. A failing check in a rank throws; launch()
// logs it with the rank's [rank/world] prefix and ends the other ranks.
inline int run_on_ranks(int ranks, const std::function<void(Team&)>& body) {
  if (SYMM_TEST_GPUS == 1) test::share_first_visible_gpu();
  LaunchOptions options;
  options.num_ranks = ranks;
  options.rank_timeout = std::chrono::seconds(180);  // a hang fails the test, not the run
  return launch(options, [&](Team& team) {
    body(team);
    return 0;
  });
}

// A check inside a rank: throws symm::Error with the message when it fails.
inline void require(bool condition, const std::string& message) {
  if (!condition) throw Error("check failed: " + message);
}

}  // namespace symm::testing
