// A sweep's progress line (sweep_progress.hpp).
#include "sweep_progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::examples::gemm_all_scatter {

std::string point_summary(const std::vector<nlohmann::json>& rows) {
  using nlohmann::json;
  const json* best = nullptr;
  int invalid = 0, skipped = 0;
  bool shared = false;
  for (const json& row : rows) {
    if (row.value("valid", json()) == json(false)) ++invalid;
    if (!row.value("skipped", json()).is_null()) ++skipped;
    shared = shared || row.value("ranks_share_gpus", json()) == json(true);
    const bool variant = row.value("variant", json()).is_string() &&
                         ops::parse_variant(row["variant"].get<std::string>());
    if (variant && row.value("tflops", json()).is_number() &&
        (!best || row["tflops"] > (*best)["tflops"]))
      best = &row;
  }
  std::string text = "nothing measured";
  if (best) {
    const json& b = *best;
    text = fmt::format("best {} {}x{}x{}s{} {:.1f} TFLOP/s", b["variant"].get<std::string>(),
                       b["BLK_M"].dump(), b["BLK_N"].dump(), b["BLK_K"].dump(), b["num_stages"].dump(),
                       b["tflops"].get<double>());
    if (b.value("ratio_vs_gemm_alone", json()).is_number())
      text += fmt::format(", {:.2f}x gemm_alone", b["ratio_vs_gemm_alone"].get<double>());
    if (b.value("speedup_vs_baseline", json()).is_number())
      text += fmt::format(", {:.2f}x faster than {}", b["speedup_vs_baseline"].get<double>(),
                          b["baseline"].get<std::string>());
  }
  if (skipped) text += fmt::format("; {} skipped", skipped);
  if (invalid) text += fmt::format("; validation FAILED for {}", invalid);
  if (shared) text += "; ranks share GPUs: a correctness run, not speed";
  return text;
}

std::string duration_text(double seconds) {
  const long s = std::lround(std::max(seconds, 0.0));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

std::optional<double> seconds_left(const std::vector<double>& seconds_per_point, int points_left) {
  if (seconds_per_point.empty()) return std::nullopt;
  const double mean = std::accumulate(seconds_per_point.begin(), seconds_per_point.end(), 0.0) /
                      double(seconds_per_point.size());
  return mean * points_left;
}

std::string progress_text(int done, int total, std::optional<double> left, int width) {
  const int filled = total > 0 ? width * done / total : width;
  return fmt::format("[{}{}] {}/{} points, {} left, {}", std::string(filled, '#'),
                     std::string(width - filled, '-'), done, total, total - done,
                     left ? "about " + duration_text(*left) + " to go" : "time left not known yet");
}

SweepProgress::SweepProgress(int total, int done, std::vector<double> seconds, bool terminal)
    : total_(total), done_(done), seconds_(std::move(seconds)), terminal_(terminal) {}

void SweepProgress::draw(const std::string& tail) const {
  const std::string text = progress_text(done_, total_, seconds_left(seconds_, total_ - done_)) +
                           (tail.empty() ? "" : ": " + tail);
  // A terminal redraws one line (erase, carriage return); elsewhere each line stays.
  if (terminal_) fmt::print(stderr, "\r\033[K{}", text);
  else fmt::print(stderr, "sweep: {}\n", text);
  std::fflush(stderr);
}

void SweepProgress::begin(const std::string& point) {
  if (terminal_) draw("measuring " + point);
}

void SweepProgress::finish(const std::string& point, double seconds, bool measured,
                           const std::string& summary) {
  ++done_;
  if (measured) seconds_.push_back(seconds);
  const std::string what = measured ? fmt::format("{} in {}: {}", point, duration_text(seconds), summary)
                                    : fmt::format("{}: {}", point, summary);
  if (terminal_) {
    // Each point's summary stays on the screen; the bar is redrawn below it.
    fmt::print(stderr, "\r\033[K{}\n", what);
    draw("");
    if (done_ == total_) fmt::print(stderr, "\n");
  } else {
    draw(what);
  }
}

}  // namespace symm::examples::gemm_all_scatter
