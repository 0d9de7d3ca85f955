// A sweep's JSON lines file (sweep_file.hpp).
#include "sweep_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

#include "symm/common/error.hpp"
#include "symm/host/log.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

using nlohmann::json;

// The file's text; a file that cannot be read is a symm::Error saying why.
std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  try {
    return std::string(std::istreambuf_iterator<char>(in), {});
  } catch (const std::exception& e) {  // a read error (EIO, EISDIR) throws from the file's buffer
    throw Error(fmt::format("{}: cannot read: {}", path, e.what()));
  }
}

// The whole lines of `text`: without a torn last line (one cut off before its newline).
std::string whole_lines(const std::string& text) {
  const std::size_t newline = text.rfind('\n');
  return newline == std::string::npos ? std::string() : text.substr(0, newline + 1);
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

// The first line parsed, when it is a whole line of JSON; none otherwise.
std::optional<json> first_line(const std::string& text) {
  const std::size_t newline = text.find('\n');
  if (newline == std::string::npos) return std::nullopt;
  json line = json::parse(text.substr(0, newline), nullptr, /*allow_exceptions=*/false);
  if (line.is_discarded()) return std::nullopt;
  return line;
}

bool is_sweep_header(const std::optional<json>& line) {
  return line && line->is_object() && line->value("schema", json()) == kSweepSchema && line->contains("preset");
}

// An existing file that is not regular (a directory, a device) is no sweep file.
bool regular_or_missing(const std::string& path) {
  std::error_code ec;
  return !std::filesystem::exists(path, ec) || std::filesystem::is_regular_file(path, ec);
}

bool row_failed(const json& row) {
  return row.value("valid", json()) == json(false) || !row.value("failed", json()).is_null();
}

// A result line whose rows all say why something was not run: nothing was measured.
bool only_skips(const json& line) {
  const json rows = line.value("rows", json::array());
  return !rows.empty() && std::all_of(rows.begin(), rows.end(), [](const json& row) {
    return row.is_object() && row.value("skipped", json()).is_string();
  });
}

}  // namespace

std::string sweep_file_problem(const std::string& path, const std::string& preset_file, const json& preset,
                               const json& settings) {
  if (!regular_or_missing(path))
    return fmt::format("-o {} is not a regular file: a sweep appends to a file of its own; give a file name", path);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  const std::string text = read_all(path);
  if (text.empty()) return {};
  const std::optional<json> header = first_line(text);
  if (!is_sweep_header(header))
    return fmt::format("-o {} has no sweep header ({}): it is not a sweep file, and a sweep appends to a "
                       "file of its own; give another -o",
                       path, kSweepSchema);
  if (header->at("preset") != preset) {
    const json theirs = header->value("preset_file", json());
    return fmt::format("-o {} holds a sweep of another preset ({}) than {}; resume it with that preset, or "
                       "give another -o",
                       path, theirs.is_string() ? theirs.get<std::string>() : "?", preset_file);
  }
  // Every key of either side (a variable set then and unset now differs too); a header
  // without settings (written before they were recorded) is taken as it is.
  const json theirs = header->value("settings", settings);
  json keys = json::object();
  for (const json* side : {&theirs, &settings})
    for (const auto& item : side->items()) keys[item.key()] = true;
  for (const auto& item : keys.items()) {
    const json old = theirs.value(item.key(), json()), now = settings.value(item.key(), json());
    if (old != now)
      return fmt::format("-o {} was measured with {} = {}, and this run has {}: every point of a sweep file is "
                         "measured alike; resume with the same setting, or give another -o",
                         path, item.key(), old.is_null() ? "unset" : old.dump(), now.is_null() ? "unset" : now.dump());
  }
  try {
    parse_lines(whole_lines(text), path);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

SweepFile::SweepFile(std::string path, const std::string& preset_file, const json& preset, const json& settings)
    : path_(std::move(path)) {
  if (std::string why = sweep_file_problem(path_, preset_file, preset, settings); !why.empty()) throw Error(why);
  std::error_code ec;
  const std::string text = std::filesystem::exists(path_, ec) ? read_all(path_) : std::string();
  if (text.empty()) {
    append({{"schema", kSweepSchema}, {"preset_file", preset_file}, {"preset", preset}, {"settings", settings}});
    lines_at_open_ = 1;
    return;
  }
  const std::string whole = whole_text();
  lines_at_open_ = std::size_t(std::count(whole.begin(), whole.end(), '\n'));
}

// The file's whole lines: a last line a kill cut off (the writing rank ended by the
// supervisor, in this launch or an earlier one) is removed from the file, so that the
// next line appended starts a line of its own.
std::string SweepFile::whole_text() const {
  const std::string text = read_all(path_);
  std::string whole = whole_lines(text);
  if (whole.size() < text.size()) {
    log::warn(fmt::format("{}: removing a torn last line (a write cut off by a kill)", path_));
    std::filesystem::resize_file(path_, whole.size());
  }
  return whole;
}

SweepState SweepFile::read() const {
  SweepState state;
  const std::vector<json> lines = parse_lines(whole_text(), path_);
  for (std::size_t index = 0; index < lines.size(); ++index) {
    const json& line = lines[index];
    if (line.contains("started")) {
      state.interrupted = line["started"].get<std::string>();
      ++state.started;
    } else if (line.contains("point")) {
      const std::string point = line["point"].get<std::string>();
      if (state.interrupted == point) state.interrupted.reset();
      if (only_skips(line)) {
        state.skipped.insert(point);
        // A skip recorded by an earlier session is tried again (this machine may run it).
        if (index >= lines_at_open_) state.finished.insert(point);
        continue;
      }
      state.skipped.erase(point);
      state.finished.insert(point);
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
  const std::string text = line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error(fmt::format("{}: cannot open for appending: {}", path_, system_error_text(errno)));
  std::size_t done = 0;
  int error = 0;
  while (done < text.size() && error == 0) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n > 0) done += std::size_t(n);
    else if (n == 0) error = ENOSPC;
    else if (errno != EINTR) error = errno;
  }
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0)
    throw Error(fmt::format("{}: appending a line failed: {}", path_, system_error_text(error)));
}

std::vector<SweepPoint> unfinished(const std::vector<SweepPoint>& points, const SweepState& state) {
  std::vector<SweepPoint> left;
  for (const SweepPoint& p : points)
    if (!state.finished.contains(p.key)) left.push_back(p);
  return left;
}

SweepCounts count_points(const std::vector<SweepPoint>& points, const SweepState& state) {
  const std::set<std::string> failed(state.failed.begin(), state.failed.end());
  SweepCounts counts;
  for (const SweepPoint& p : points) {
    if (failed.contains(p.key))
      ++counts.failed;
    else if (state.skipped.contains(p.key))
      ++counts.skipped;
    else if (state.finished.contains(p.key))
      ++counts.measured;
  }
  return counts;
}

json started_line(const std::string& point) {
  return {{"schema", kSweepSchema}, {"started", point}, {"timestamp", utc_timestamp_now()}};
}

json result_line(const std::string& point, double seconds, const RunInfo& run, std::vector<json> rows) {
  return {{"schema", kResultsSchema}, {"point", point}, {"seconds", seconds},
          {"run", to_json(run)},      {"rows", std::move(rows)}};
}

}  // namespace symm::examples::gemm_all_scatter
