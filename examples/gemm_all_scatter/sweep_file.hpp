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
// failed. A point is finished once it has a result line; resuming skips finished points,
// but not those whose result line only says why they were skipped (a rank count this
// machine cannot run, say): a resume, perhaps on a bigger machine, tries them again.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep_preset.hpp"
#include "symm/host/results.hpp"

namespace symm::examples::gemm_all_scatter {

struct SweepState {
  // Points with a result line, but for skips recorded before this SweepFile was opened:
  // those are tried again.
  std::set<std::string> finished;
  std::set<std::string> skipped;           // points whose last result line only says why not
  std::optional<std::string> interrupted;  // the last point started and not finished
  int started = 0;                         // "started" lines: did a launch reach a point?
  std::vector<double> seconds;             // time taken by each measured (not skipped) point
  std::vector<std::string> failed;         // points with a failed or invalid row
};

// Empty when `path` can hold this preset's sweep: it does not exist, is empty, or is a
// sweep file of the same preset measured with the same `settings` (the flags and
// variables beside the preset that change what is measured: sweep_settings), a torn last
// line aside; else what it is and what to do. Reads and changes nothing: the command line
// checks -o with it before anything runs.
std::string sweep_file_problem(const std::string& path, const std::string& preset_file,
                               const nlohmann::json& preset, const nlohmann::json& settings);

class SweepFile {
 public:
  // Creates `path` with its header, or resumes it: sweep_file_problem must find nothing
  // (else symm::Error says what), and then a torn last line (a write cut off) is removed.
  SweepFile(std::string path, const std::string& preset_file, const nlohmann::json& preset,
            const nlohmann::json& settings);

  const std::string& path() const { return path_; }
  SweepState read() const;
  // One write(2) of the line and a newline, then fsync: a kill leaves whole lines, or a
  // torn last one that the next open removes.
  void append(const nlohmann::json& line) const;

 private:
  std::string whole_text() const;  // the file, less a torn last line (removed from it too)
  std::string path_;
  std::size_t lines_at_open_ = 0;  // lines written by earlier sessions
};

// The points not finished in `state`, in their order: what a resumed sweep runs.
std::vector<SweepPoint> unfinished(const std::vector<SweepPoint>& points, const SweepState& state);

// How `points` (what this run covers, not every point of the file) stand in `state`.
struct SweepCounts {
  int measured = 0;  // finished without a failure
  int skipped = 0;   // only skips recorded
  int failed = 0;    // a failed or invalid row
};
SweepCounts count_points(const std::vector<SweepPoint>& points, const SweepState& state);

nlohmann::json started_line(const std::string& point);
nlohmann::json result_line(const std::string& point, double seconds, const RunInfo& run,
                           std::vector<nlohmann::json> rows);

}  // namespace symm::examples::gemm_all_scatter
