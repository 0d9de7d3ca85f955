// Cases whose outcomes check_skip_exit_codes.cmake reads through gtest_main's exit code.
#include <gtest/gtest.h>

TEST(Probe, Passes) {}
TEST(Probe, Skips) { GTEST_SKIP() << "deliberately"; }
TEST(Probe, Fails) { ADD_FAILURE() << "deliberately"; }
TEST(Probe, FailsThenSkips) {
  ADD_FAILURE() << "deliberately";
  GTEST_SKIP() << "a skip after a failure must not hide it";
}
