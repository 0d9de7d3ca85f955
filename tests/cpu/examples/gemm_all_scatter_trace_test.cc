// --trace_tiles' file: Chrome trace events that Perfetto opens, one process per rank, one
// track per warpgroup or copier, every rank's time zero at its barrier exit.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "trace_file.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

using Kind = ops::TileEvent::Kind;

TEST(TileTraceFile, EventsBecomeCompleteEventsAlignedAtTheEarliest) {
  const std::vector<std::vector<ops::TileEvent>> ranks = {
      {{Kind::compute, 0, 0, 0, -90.0, -50.0}, {Kind::compute, 1, 0, 1, -80.0, -40.0},
       {Kind::drain, -1, 0, 0, -50.0, -5.0}},
      {{Kind::compute, 0, 3, 0, -100.0, -60.0}, {Kind::push, 0, 5, -1, -60.0, -20.0}}};
  const nlohmann::json trace = chrome_trace(ranks, "test");
  int complete = 0;
  double earliest = 1e9;
  std::set<std::string> threads, processes;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X") {
      ++complete;
      EXPECT_GE(e["dur"].get<double>(), 0.0);
      earliest = std::min(earliest, e["ts"].get<double>());
      if (e["cat"] == "push") {
        EXPECT_EQ(e["pid"], 1);
        EXPECT_EQ(e["name"], "push 0");
        EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 40.0);  // -60 us, shifted by the earliest -100
      }
    } else if (e["name"] == "thread_name") {
      threads.insert(e["args"]["name"].get<std::string>());
    } else if (e["name"] == "process_name") {
      processes.insert(e["args"]["name"].get<std::string>());
    }
  }
  EXPECT_EQ(complete, 5);
  EXPECT_DOUBLE_EQ(earliest, 0.0);
  EXPECT_EQ(processes, (std::set<std::string>{"rank 0", "rank 1"}));
  EXPECT_TRUE(threads.count("block 0 warpgroup 1"));
  EXPECT_TRUE(threads.count("block 5 pushes"));
}

TEST(TileTraceFile, PathsSitBesideTheResults) {
  EXPECT_EQ(trace_path("out/run.json", "tma_push"), "out/run.tma_push.trace.json");
  EXPECT_EQ(trace_path("", "wg_specialization"), "gemm_all_scatter.wg_specialization.trace.json");
}

}  // namespace
}  // namespace symm::examples::gemm_all_scatter
