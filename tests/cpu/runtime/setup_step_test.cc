// Collective setup steps: a failure on one rank fails the step on every rank, naming
// the rank and its reason (so "auto" falls back to IPC on all ranks together).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "heap_mapping.hpp"
#include "thread_team.hpp"

namespace symm {
namespace {

TEST(RunOnEveryRank, SuccessEverywhereThrowsNowhere) {
  int ran = 0;
  std::mutex mutex;
  const auto errors = testing::run_ranks(4, [&](Team& team) {
    run_on_every_rank(team, "a step", [&] {
      std::lock_guard lock(mutex);
      ++ran;
    });
  });
  for (const std::string& error : errors) EXPECT_EQ(error, "");
  EXPECT_EQ(ran, 4);
}

TEST(RunOnEveryRank, OneRanksFailureFailsEveryRankWithItsReason) {
  bool every_rank_saw_setup_failure = true;
  std::mutex mutex;
  const auto errors = testing::run_ranks(3, [&](Team& team) {
    try {
      run_on_every_rank(team, "mapping the heap", [&] {
        if (team.rank() == 2) throw Error("rank 2: cuMemMap failed: out of memory");
        if (team.rank() == 1) throw std::runtime_error("no fds here");
      });
    } catch (const SetupStepFailed&) {
      throw;
    } catch (...) {
      std::lock_guard lock(mutex);
      every_rank_saw_setup_failure = false;
      throw;
    }
  });
  EXPECT_TRUE(every_rank_saw_setup_failure);
  for (const std::string& error : errors) {
    EXPECT_NE(error.find("mapping the heap failed"), std::string::npos) << error;
    EXPECT_NE(error.find("rank 1: no fds here"), std::string::npos) << error;
    // The rank is named once even when the reason already named it.
    EXPECT_NE(error.find("rank 2: cuMemMap failed: out of memory"), std::string::npos) << error;
    EXPECT_EQ(error.find("rank 2: rank 2"), std::string::npos) << error;
    EXPECT_EQ(error.find("rank 0:"), std::string::npos) << error;
  }
}

TEST(RunOnEveryRank, VeryLongReasonsAreCutNotOverrun) {
  const auto errors = testing::run_ranks(2, [&](Team& team) {
    run_on_every_rank(team, "step", [&] { throw Error(std::string(5000, 'x')); });
  });
  for (const std::string& error : errors) {
    EXPECT_NE(error.find("rank 0: xxx"), std::string::npos);
    EXPECT_NE(error.find("rank 1: xxx"), std::string::npos);
    EXPECT_LT(error.size(), 2000u);
  }
}

}  // namespace
}  // namespace symm
