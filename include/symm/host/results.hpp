#pragma once
// Result files (docs/benchmarking.md): one JSON document per run, with what is needed to
// trust and reproduce its numbers, and one row per measurement.
//
//   symm::ResultsWriter results(argc, argv, rt);   // command line, commit, GPU, versions
//   results.add_row({{"m", m}, {"tflops", tflops}, {"time", symm::to_json(summary)}});
//   if (rt.rank() == 0) results.write(path);
//
// The commit comes from SYMM_GIT_COMMIT (the GPU machine's copy of the tree has no git
// history): the development machine passes `git rev-parse HEAD`, with "-dirty" appended
// when the tree has uncommitted changes; "unknown" when unset.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "symm/host/bench.hpp"
#include "symm/host/launch.hpp"

namespace symm {

class Runtime;

inline constexpr const char* kResultsSchema = "symm.results/1";

struct RunInfo {
  std::string command_line;
  std::string git_commit;
  std::string gpu_name;
  std::string driver_version;        // "13.0": the CUDA version the driver supports
  std::string cuda_runtime_version;  // "13.0"
  int world = 1;
  std::string heap_transport;  // "vmm" or "ipc"
  std::string timestamp;       // UTC, ISO 8601: "2025-01-31T12:00:00Z"
  std::string nvidia_driver = nvidia_driver_version();  // "580.159.04" (NVML)
};

// The arguments joined by spaces, each quoted for a POSIX shell where it needs it.
std::string command_line_of(int argc, const char* const* argv);
// SYMM_GIT_COMMIT, or "unknown".
std::string git_commit_from_env();
std::string utc_timestamp_now();
// Everything above, asking CUDA for this rank's GPU and versions.
RunInfo collect_run_info(int argc, const char* const* argv, const Runtime& runtime);
// The same for a single-process program without a symmetric heap (world 1, transport
// "none"), e.g. a benchmark of one GPU's kernels.
RunInfo collect_run_info(int argc, const char* const* argv, int device);

nlohmann::json to_json(const RunInfo& info);
nlohmann::json to_json(const BenchResult& result);  // figures and every sample, in ms
nlohmann::json to_json(const CrossRankSummary& summary);

class ResultsWriter {
 public:
  explicit ResultsWriter(RunInfo info) : info_(std::move(info)) {}
  ResultsWriter(int argc, const char* const* argv, const Runtime& runtime)
      : ResultsWriter(collect_run_info(argc, argv, runtime)) {}

  void add_row(nlohmann::json row) { rows_.push_back(std::move(row)); }
  // {"schema": kResultsSchema, "run": {...}, "rows": [...]}
  nlohmann::json to_json() const;
  // Written to a temporary file beside `path`, then renamed: never half a file.
  void write(const std::string& path) const;

 private:
  RunInfo info_;
  std::vector<nlohmann::json> rows_;
};

}  // namespace symm
