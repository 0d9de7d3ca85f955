// What must fail does so with a report, within seconds: an unsatisfiable wait (any
// build) and, in SYMM_DEBUG code, a narrow scope on a peer address or an address
// outside the heap (failure_ranks.cu). Each runs in child ranks; the test reads what
// the failing rank printed.
#include <cstdlib>
#include <optional>
#include <regex>
#include <string>

#include "harness.hpp"
#include "scoped_env.hpp"
#include "rank_bodies.hpp"

namespace symm::test {
namespace {

void expect_mentions(const std::string& output, const std::string& text) {
  EXPECT_NE(output.find(text), std::string::npos) << "missing \"" << text << "\" in:\n" << output;
}

TEST(RmaFailures, AWaitNobodySatisfiesEndsWithADiagnosticNotAHang) {
  SYMM_REQUIRE_GPUS(1);
  const ScopedEnv budget("SYMM_WAIT_TIMEOUT_MS", "300");
  const CapturedRun run = run_on_ranks_captured(2, unsatisfiable_wait_body);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_LT(run.seconds, 60) << "the failing wait took too long to end the job";
  const std::string& out = run.output.at(1);
  std::smatch offset;
  ASSERT_TRUE(std::regex_search(out, offset, std::regex("flag at heap offset (\\d+)"))) << out;
  expect_mentions(out, "device error on rank 1, block (0,0,0), thread (0,0,0)");
  expect_mentions(out, "(heap offset " + offset[1].str() + ",");
  expect_mentions(out, "saw 0, expected == 7");
  std::smatch waited;
  ASSERT_TRUE(std::regex_search(out, waited, std::regex("timed out after (\\d+) ms"))) << out;
  // Near the budget set, and far below the 10 s default: a budget that is not read
  // (or not passed to the kernel) fails here.
  EXPECT_GE(std::stoi(waited[1]), 300);
  EXPECT_LE(std::stoi(waited[1]), 1000) << "the wait ignored SYMM_WAIT_TIMEOUT_MS=300";
}

TEST(RmaFailures, DebugBuildsRejectANarrowScopeOnAPeerAddress) {
  SYMM_REQUIRE_GPUS(1);
  const CapturedRun run = run_on_ranks_captured(2, narrow_scope_on_peer_body);
  EXPECT_NE(run.exit_code, 0);
  expect_mentions(run.output.at(1), "atomic_add on rank 0's heap with device scope");
  expect_mentions(run.output.at(1), "must use cuda::thread_scope_system");
}

TEST(RmaFailures, DebugBuildsRejectAnAddressOutsideTheHeap) {
  SYMM_REQUIRE_GPUS(1);
  const CapturedRun run = run_on_ranks_captured(2, address_outside_heap_body);
  EXPECT_NE(run.exit_code, 0);
  expect_mentions(run.output.at(1), "address outside this rank's heap");
}

// A range whose first byte lies in the heap but whose last does not: the ranks' heaps may
// be mapped side by side, so the overrun would write the next rank's heap unnoticed.
TEST(RmaFailures, DebugBuildsRejectARangeRunningPastTheHeapsEnd) {
  SYMM_REQUIRE_GPUS(1);
  const CapturedRun run = run_on_ranks_captured(2, range_past_heap_end_body);
  EXPECT_NE(run.exit_code, 0);
  expect_mentions(run.output.at(1), "128 bytes, peer 0): address outside this rank's heap");
}

}  // namespace
}  // namespace symm::test
