#pragma once
// What a run found, one row per contender, and what is made of the rows: the table on
// rank 0's terminal and the JSON results file. The table is derived from the same rows
// as the JSON, never typed separately.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "symm/gemm/config.hpp"
#include "symm/host/bench.hpp"
#include "symm/host/runtime.hpp"

namespace symm::examples::gemm_all_scatter {

inline constexpr const char* kGemmAlone = "gemm_alone";
// The baselines speedups are taken against, in order of preference.
inline constexpr const char* kPreferredBaselines[] = {"cublaslt+nccl", "cublaslt+copy_engine"};

struct Row {
  std::string name;       // the variant that ran, "gemm_alone", or a baseline's name
  std::string requested;  // variants: what --variant asked for ("auto" or the name)
  std::string detail;     // the plan (describe()) or the baseline's detail()
  std::optional<gemm::KernelConfig> config;  // tile configuration, where one applies
  int gemm_sms = 0, comm_sms = 0, gsize_m = 0;  // 0: does not apply
  std::optional<CrossRankSummary> time;  // with --benchmark
  std::optional<bool> valid;             // with --validate (variants and baselines)
  std::string skipped;                   // a baseline or sweep configuration not measured: why
  // The tile configuration's index in its point (point.hpp): a variant's ratio is taken
  // against the gemm_alone of its group; baselines belong to group 0.
  int group = 0;
};

// What every row shares.
struct RunFacts {
  const Program& program;
  const CommandLine& cl;
  int world = 1;
  int gpus = 1;  // distinct GPUs among the ranks
  bool ranks_share_gpus = false;
  std::uint64_t seed = 0;
};

// Rank 0: the table of timed rows, with the skipped baselines and their reasons.
void print_table(const RunFacts& facts, const std::vector<Row>& rows);

// Every row as JSON (fixed keys, null where a figure does not apply).
std::vector<nlohmann::json> rows_json(const RunFacts& facts, const std::vector<Row>& rows);

// Rank 0: the rows written as a results file (--output_file).
void write_results(const RunFacts& facts, const std::vector<Row>& rows, const Runtime& rt,
                   int argc, char** argv);

}  // namespace symm::examples::gemm_all_scatter
