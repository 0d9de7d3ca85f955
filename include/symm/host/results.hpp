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
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "symm/host/bench.hpp"
#include "symm/host/launch.hpp"

namespace symm {

class Runtime;

inline constexpr const char* kResultsSchema = "symm.results/1";
// The first line of a sweep file (the GEMM + all-scatter programs' --preset runs append
// each point's results to one).
inline constexpr const char* kSweepSchema = "symm.sweep/1";

// Empty unless `path` is an existing sweep file, which a results file written there would
// replace (a sweep's points are lost): then that, naming `flag`, and what to do. For the
// programs' output flags, checked before anything runs.
std::string check_not_a_sweep_file(const std::string& flag, const std::string& path);

// Every SYMM_* variable of this process's environment, by name.
std::map<std::string, std::string> symm_environment();

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
  // Where the ranks ran: timings of ranks that shared a GPU (they take turns) must not be
  // compared with timings of ranks on GPUs of their own.
  std::vector<std::string> rank_gpus;  // PCI bus id of each rank's GPU, by rank
  int gpus() const;                    // distinct GPUs in rank_gpus (0 when not known)
  int ranks_per_gpu() const;           // the most ranks on one GPU (0 when not known)
  // Every SYMM_* variable in effect (SYMM_GEMM_* shape the kernels run).
  std::map<std::string, std::string> symm_env = symm_environment();
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
  // Written to a temporary file beside `path`, then renamed: never half a file. Logs
  // "wrote <path>", so that a program run directly says where its results went.
  void write(const std::string& path) const;

 private:
  RunInfo info_;
  std::vector<nlohmann::json> rows_;
};

}  // namespace symm
