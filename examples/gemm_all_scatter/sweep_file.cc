// A sweep's JSON lines file (sweep_file.hpp).
#include "sweep_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "symm/common/error.hpp"
#include "symm/host/log.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

using nlohmann::json;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<json> parse_lines(const std::string& text, const std::string& path) {
  std::vector<json> lines;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    try {
      lines.push_back(json::parse(line));
    } catch (const json::exception& e) {
      throw Error(fmt::format("{} line {} is not JSON ({}): not a sweep file; give another -o", path,
                              number, e.what()));
    }
  }
  return lines;
}

bool row_failed(const json& row) {
  return row.value("valid", json()) == json(false) || !row.value("failed", json()).is_null();
}

}  // namespace

SweepFile::SweepFile(std::string path, const std::string& preset_file, const json& preset)
    : path_(std::move(path)) {
  namespace fs = std::filesystem;
  if (!fs::exists(path_) || fs::file_size(path_) == 0) {
    append({{"schema", kSweepSchema}, {"preset_file", preset_file}, {"preset", preset}});
    return;
  }
  const std::string text = read_all(path_);
  const std::size_t end = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  if (end < text.size()) {
    log::warn(fmt::format("{}: removing a torn last line (a write cut off by a kill)", path_));
    fs::resize_file(path_, end);
  }
  const std::vector<json> lines = parse_lines(text.substr(0, end), path_);
  if (lines.empty() || lines.front().value("schema", "") != kSweepSchema || !lines.front().contains("preset"))
    throw Error(fmt::format("{} has no sweep header: it is not a sweep file; give another -o", path_));
  if (lines.front()["preset"] != preset)
    throw Error(fmt::format("{} holds a sweep of another preset ({}); resume it with that preset, or "
                            "give another -o",
                            path_, lines.front().value("preset_file", "?")));
}

SweepState SweepFile::read() const {
  SweepState state;
  for (const json& line : parse_lines(read_all(path_), path_)) {
    if (line.contains("started")) {
      state.interrupted = line["started"].get<std::string>();
      ++state.started;
    } else if (line.contains("point")) {
      const std::string point = line["point"].get<std::string>();
      state.finished.insert(point);
      if (state.interrupted == point) state.interrupted.reset();
      if (line.contains("seconds")) state.seconds.push_back(line["seconds"].get<double>());
      for (const json& row : line.value("rows", json::array())) {
        if (row_failed(row)) {
          state.failed.push_back(point);
          break;
        }
      }
    }
  }
  return state;
}

void SweepFile::append(const json& line) const {
  const std::string text = line.dump() + "\n";
  const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error(fmt::format("{}: cannot open for appending: {}", path_, std::strerror(errno)));
  const ssize_t written = ::write(fd, text.data(), text.size());
  const int saved = errno;
  ::fsync(fd);
  ::close(fd);
  if (written != static_cast<ssize_t>(text.size()))
    throw Error(fmt::format("{}: appending a line failed: {}", path_,
                            written < 0 ? std::strerror(saved) : "short write (disk full?)"));
}

std::vector<SweepPoint> unfinished(const std::vector<SweepPoint>& points, const SweepState& state) {
  std::vector<SweepPoint> left;
  for (const SweepPoint& p : points)
    if (!state.finished.contains(p.key)) left.push_back(p);
  return left;
}

json started_line(const std::string& point) {
  return {{"schema", kSweepSchema}, {"started", point}, {"timestamp", utc_timestamp_now()}};
}

json result_line(const std::string& point, double seconds, const RunInfo& run, std::vector<json> rows) {
  return {{"schema", kResultsSchema}, {"point", point}, {"seconds", seconds},
          {"run", to_json(run)},      {"rows", std::move(rows)}};
}

}  // namespace symm::examples::gemm_all_scatter
