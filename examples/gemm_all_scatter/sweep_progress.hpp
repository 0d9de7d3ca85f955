#pragma once
// How far a sweep is, on rank 0's stderr: on a terminal one line redrawn in place (a bar,
// points done and left, the estimated time left, the point being measured); otherwise
// one plain line per finished point, which logs and CI output keep readable.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace symm::examples::gemm_all_scatter {

// "45s", "7m12s", "1h02m".
std::string duration_text(double seconds);

// The mean time of the measured points so far times the points left; none before the
// first point was measured.
std::optional<double> seconds_left(const std::vector<double>& seconds_per_point, int points_left);

// "[########------------] 12/60 points, 48 left, about 7m12s to go" (bar `width` wide).
std::string progress_text(int done, int total, std::optional<double> left, int width = 20);

// One line about a measured point's result rows: the fastest variant's tile, TFLOP/s and
// ratios, then what was skipped or failed validation, and, where ranks shared GPUs, that
// the speeds are not speeds (the ranks took turns on the GPU).
std::string point_summary(const std::vector<nlohmann::json>& rows);

class SweepProgress {
 public:
  // `done` of `total` points are finished already; `seconds` are the measured points'
  // times so far (from the sweep file, so estimates survive a resume).
  SweepProgress(int total, int done, std::vector<double> seconds, bool terminal);
  void begin(const std::string& point);
  // `measured`: the point ran (not skipped); `summary`: one line about its figures.
  void finish(const std::string& point, double seconds, bool measured, const std::string& summary);

 private:
  void draw(const std::string& tail) const;

  int total_, done_;
  std::vector<double> seconds_;
  bool terminal_;
};

}  // namespace symm::examples::gemm_all_scatter
