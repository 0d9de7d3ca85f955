// Result files: run metadata plus rows, as one JSON document.
#include "symm/host/results.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <string_view>

#include "symm/common/error.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/log.hpp"
#include "symm/host/runtime.hpp"

extern char** environ;

namespace symm {
namespace {

bool needs_quoting(std::string_view arg) {
  if (arg.empty()) return true;
  for (char c : arg) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) ||
                       std::string_view("-_./=:,+@%").find(c) != std::string_view::npos;
    if (!plain) return true;
  }
  return false;
}

std::string shell_quote(std::string_view arg) {
  if (!needs_quoting(arg)) return std::string(arg);
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string cuda_version_string(int version) {
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

}  // namespace

std::string command_line_of(int argc, const char* const* argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + shell_quote(argv[i]);
  return line;
}

std::string git_commit_from_env() {
  const char* commit = std::getenv("SYMM_GIT_COMMIT");
  return commit != nullptr && *commit != '\0' ? commit : "unknown";
}

std::string utc_timestamp_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::map<std::string, std::string> symm_environment() {
  std::map<std::string, std::string> variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto eq = text.find('=');
    if (text.starts_with("SYMM_") && eq != std::string_view::npos) {
      variables.emplace(text.substr(0, eq), text.substr(eq + 1));
    }
  }
  return variables;
}

int RunInfo::gpus() const {
  return static_cast<int>(std::set<std::string>(rank_gpus.begin(), rank_gpus.end()).size());
}

int RunInfo::ranks_per_gpu() const {
  std::map<std::string, int> ranks_on;
  int most = 0;
  for (const std::string& gpu : rank_gpus) most = std::max(most, ++ranks_on[gpu]);
  return most;
}

RunInfo collect_run_info(int argc, const char* const* argv, int device) {
  int driver = 0, runtime_version = 0;
  cudaDeviceProp prop{};
  SYMM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  SYMM_CUDA_CHECK(cudaDriverGetVersion(&driver));
  SYMM_CUDA_CHECK(cudaRuntimeGetVersion(&runtime_version));
  RunInfo info;
  info.command_line = command_line_of(argc, argv);
  info.git_commit = git_commit_from_env();
  info.gpu_name = prop.name;
  info.driver_version = cuda_version_string(driver);
  info.cuda_runtime_version = cuda_version_string(runtime_version);
  info.heap_transport = "none";
  info.timestamp = utc_timestamp_now();
  char bus_id[32] = {};
  SYMM_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
  info.rank_gpus = {bus_id};
  return info;
}

RunInfo collect_run_info(int argc, const char* const* argv, const Runtime& runtime) {
  RunInfo info = collect_run_info(argc, argv, runtime.device());
  info.world = runtime.world();
  info.rank_gpus = runtime.rank_gpus();
  info.heap_transport = std::string(transport_name(runtime.heap().transport()));
  return info;
}

nlohmann::json to_json(const RunInfo& info) {
  return {{"command_line", info.command_line},
          {"git_commit", info.git_commit},
          {"gpu_name", info.gpu_name},
          {"driver_version", info.driver_version},
          {"nvidia_driver", info.nvidia_driver},
          {"cuda_runtime_version", info.cuda_runtime_version},
          {"world", info.world},
          {"heap_transport", info.heap_transport},
          {"timestamp", info.timestamp},
          {"gpus", info.gpus()},
          {"ranks_per_gpu", info.ranks_per_gpu()},
          {"ranks_share_gpus", info.ranks_per_gpu() > 1},
          {"rank_gpus", info.rank_gpus},
          {"symm_env", info.symm_env}};
}

nlohmann::json to_json(const BenchResult& result) {
  return {{"mean_ms", result.mean_ms},         {"median_ms", result.median_ms},
          {"min_ms", result.min_ms},           {"max_ms", result.max_ms},
          {"quantile_ms", result.quantile_ms}, {"samples_ms", result.samples_ms}};
}

nlohmann::json to_json(const CrossRankSummary& summary) {
  nlohmann::json ranks = nlohmann::json::array();
  for (std::size_t r = 0; r < summary.ranks.size(); ++r) {
    const RankFigures& figures = summary.ranks[r];
    ranks.push_back({{"rank", figures.rank},
                     {"mean_ms", figures.mean_ms},
                     {"median_ms", figures.median_ms},
                     {"min_ms", figures.min_ms},
                     {"max_ms", figures.max_ms},
                     {"samples_ms", summary.samples_ms.at(r)}});
  }
  return {{"headline_ms", summary.headline_ms},
          {"headline", "median of the slowest rank"},
          {"slowest_rank", summary.slowest_rank},
          {"skew_ms", summary.skew_ms},
          {"skew_ratio", summary.skew_ratio},
          {"ranks", ranks}};
}

nlohmann::json ResultsWriter::to_json() const {
  return {{"schema", kResultsSchema}, {"run", symm::to_json(info_)}, {"rows", rows_}};
}

void ResultsWriter::write(const std::string& path) const {
  // Text first (a byte that is not UTF-8, from a command line or a name, is replaced, not
  // thrown at the end of the run), then the temporary file.
  const std::string text = to_json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string temporary = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream out(temporary);
    out << text << '\n';
    out.close();
    if (!out) {
      std::remove(temporary.c_str());
      throw Error(fmt::format("cannot write results to {}: {}", temporary, system_error_text(errno)));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    throw Error(fmt::format("cannot move results into {}: {}", path, system_error_text(error)));
  }
  log::info(fmt::format("wrote {}", path));  // every program's results, said where they went
}

std::string check_not_a_sweep_file(const std::string& flag, const std::string& path) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::is_regular_file(path, ec)) return {};
  std::ifstream in(path, std::ios::binary);
  std::string first;
  try {
    if (!std::getline(in, first) || in.eof()) return {};  // no whole first line: no header
  } catch (const std::exception&) {
    return {};  // unreadable: the output check says why where it matters
  }
  const nlohmann::json header = nlohmann::json::parse(first, nullptr, /*allow_exceptions=*/false);
  if (!header.is_object() || header.value("schema", nlohmann::json()) != kSweepSchema) return {};
  return fmt::format("{} {} is a sweep file ({}), which this run's results would replace: resume the sweep "
                     "with its program's --preset, or give another {}",
                     flag, path, kSweepSchema, flag);
}

}  // namespace symm
