#pragma once
// A sweep's results file: JSON lines, appended as the sweep goes, so that an interrupted
// sweep (Ctrl-C, a killed rank, a time limit) loses at most the point it was measuring.
//
//   {"schema": "symm.sweep/1", "preset_file": ..., "preset": {...}}       the header
//   {"schema": "symm.sweep/1", "started": "2r 8192x4608x36864 bf16"}      before each point
//   {"schema": "symm.results/1", "point": "2r 8192x4608x36864 bf16", "seconds": 41.2,
//    "run": {...}, "rows": [...]}                                          after it
//
// Result lines are results documents (docs/benchmarking.md) with the point added; their
// rows are those of the programs' JSON, plus rows that say why something was skipped or
// failed. A point is finished once it has a result line; resuming skips finished points.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep_preset.hpp"
#include "symm/host/results.hpp"

namespace symm::examples::gemm_all_scatter {

inline constexpr const char* kSweepSchema = "symm.sweep/1";

struct SweepState {
  std::set<std::string> finished;          // points with a result line
  std::optional<std::string> interrupted;  // the last point started and not finished
  int started = 0;                         // "started" lines: did a launch reach a point?
  std::vector<double> seconds;             // time taken by each measured point
  std::vector<std::string> failed;         // points with a failed or invalid row
};

class SweepFile {
 public:
  // Creates `path` with its header, or resumes it: the header must hold the same preset
  // (else symm::Error says so), and a torn last line (a write cut off) is removed.
  SweepFile(std::string path, const std::string& preset_file, const nlohmann::json& preset);

  const std::string& path() const { return path_; }
  SweepState read() const;
  // One write(2) of the line and a newline, then fsync: a kill leaves whole lines, or a
  // torn last one that the next open removes.
  void append(const nlohmann::json& line) const;

 private:
  std::string path_;
};

// The points without a result line in `state`, in their order: what a resumed sweep runs.
std::vector<SweepPoint> unfinished(const std::vector<SweepPoint>& points, const SweepState& state);

nlohmann::json started_line(const std::string& point);
nlohmann::json result_line(const std::string& point, double seconds, const RunInfo& run,
                           std::vector<nlohmann::json> rows);

}  // namespace symm::examples::gemm_all_scatter
