// Result files: metadata fields, rows, the commit from SYMM_GIT_COMMIT, atomic write.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "symm/host/results.hpp"

namespace symm {
namespace {

RunInfo sample_info() {
  RunInfo info;
  info.command_line = "symm-bench -m 8192";
  info.git_commit = "0123abcd-dirty";
  info.gpu_name = "NVIDIA H200";
  info.driver_version = "13.0";
  info.cuda_runtime_version = "13.0";
  info.world = 2;
  info.heap_transport = "vmm";
  info.timestamp = "2025-01-31T12:00:00Z";
  info.nvidia_driver = "580.159.04";
  return info;
}

TEST(Results, DocumentHasSchemaRunMetadataAndRows) {
  ResultsWriter writer(sample_info());
  writer.add_row({{"m", 8192}, {"tflops", 612.5}});
  writer.add_row({{"m", 4096}, {"tflops", 401.0}});
  const nlohmann::json doc = writer.to_json();
  EXPECT_EQ(doc.at("schema"), kResultsSchema);
  const nlohmann::json& run = doc.at("run");
  EXPECT_EQ(run.at("command_line"), "symm-bench -m 8192");
  EXPECT_EQ(run.at("git_commit"), "0123abcd-dirty");
  EXPECT_EQ(run.at("gpu_name"), "NVIDIA H200");
  EXPECT_EQ(run.at("driver_version"), "13.0");
  EXPECT_EQ(run.at("cuda_runtime_version"), "13.0");
  EXPECT_EQ(run.at("world"), 2);
  EXPECT_EQ(run.at("heap_transport"), "vmm");
  EXPECT_EQ(run.at("timestamp"), "2025-01-31T12:00:00Z");
  EXPECT_EQ(run.at("nvidia_driver"), "580.159.04");
  ASSERT_EQ(doc.at("rows").size(), 2u);
  EXPECT_EQ(doc.at("rows")[1].at("m"), 4096);
}

TEST(Results, WriteProducesTheSameDocumentOnDisk) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("symm_results_test_" + std::to_string(::getpid()) + ".json");
  ResultsWriter writer(sample_info());
  writer.add_row({{"name", "row"}});
  writer.write(path.string());
  std::ifstream in(path);
  EXPECT_EQ(nlohmann::json::parse(in), writer.to_json());
  std::filesystem::remove(path);
  // No temporary file is left beside it.
  for (const auto& entry : std::filesystem::directory_iterator(path.parent_path())) {
    EXPECT_EQ(entry.path().string().find(path.string() + ".tmp"), std::string::npos);
  }
}

// A command line with a byte that is not UTF-8 (a file name in another encoding) is
// written, the byte replaced, instead of losing the run's results at its end.
TEST(Results, ACommandLineThatIsNotUtf8IsWrittenWithTheByteReplaced) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("symm_results_utf8_" + std::to_string(::getpid()) + ".json");
  RunInfo info = sample_info();
  info.command_line = "symm-bench -o caf\xe9.json";
  ResultsWriter writer(info);
  ASSERT_NO_THROW(writer.write(path.string()));
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("run").at("command_line"), "symm-bench -o caf\xef\xbf\xbd.json");  // U+FFFD
  std::filesystem::remove(path);
}

TEST(Results, WriteToAMissingDirectoryIsAnError) {
  ResultsWriter writer(sample_info());
  EXPECT_THROW(writer.write("/nonexistent-symm-dir/results.json"), Error);
}

TEST(Results, GitCommitComesFromTheEnvironmentDirtyMarkIncluded) {
  ::setenv("SYMM_GIT_COMMIT", "deadbeef-dirty", 1);
  EXPECT_EQ(git_commit_from_env(), "deadbeef-dirty");
  ::unsetenv("SYMM_GIT_COMMIT");
  EXPECT_EQ(git_commit_from_env(), "unknown");
}

// Two ranks on one GPU take turns: their file must say so, whatever else it records.
TEST(Results, PlacementCountsDistinctGpusAndRanksPerGpu) {
  RunInfo shared = sample_info();
  shared.rank_gpus = {"0000:1b:00.0", "0000:1b:00.0"};
  EXPECT_EQ(shared.gpus(), 1);
  EXPECT_EQ(shared.ranks_per_gpu(), 2);
  const nlohmann::json run = ResultsWriter(shared).to_json().at("run");
  EXPECT_EQ(run.at("gpus"), 1);
  EXPECT_EQ(run.at("ranks_per_gpu"), 2);
  EXPECT_EQ(run.at("ranks_share_gpus"), true);
  EXPECT_EQ(run.at("rank_gpus"), nlohmann::json::array({"0000:1b:00.0", "0000:1b:00.0"}));

  RunInfo spread = sample_info();
  spread.rank_gpus = {"0000:1b:00.0", "0000:43:00.0", "0000:1b:00.0"};
  EXPECT_EQ(spread.gpus(), 2);
  EXPECT_EQ(spread.ranks_per_gpu(), 2);
  spread.rank_gpus = {"0000:1b:00.0", "0000:43:00.0"};
  EXPECT_EQ(spread.gpus(), 2);
  EXPECT_EQ(spread.ranks_per_gpu(), 1);
  EXPECT_EQ(ResultsWriter(spread).to_json().at("run").at("ranks_share_gpus"), false);
}

TEST(Results, RecordsEverySymmVariableInEffect) {
  ::setenv("SYMM_GEMM_SPLITS", "3", 1);
  ::setenv("SYMMETRY", "not ours", 1);
  const nlohmann::json env = ResultsWriter(sample_info()).to_json().at("run").at("symm_env");
  ::unsetenv("SYMM_GEMM_SPLITS");
  ::unsetenv("SYMMETRY");
  EXPECT_EQ(env.at("SYMM_GEMM_SPLITS"), "3");
  EXPECT_FALSE(env.contains("SYMMETRY"));
  EXPECT_FALSE(symm_environment().contains("SYMM_GEMM_SPLITS"));
}

TEST(Results, CommandLineIsQuotedForTheShell) {
  const char* argv[] = {"./symm-bench", "-m", "8192", "--out=a b.json", "it's", ""};
  EXPECT_EQ(command_line_of(6, argv),
            "./symm-bench -m 8192 '--out=a b.json' 'it'\\''s' ''");
}

TEST(Results, TimestampIsIso8601Utc) {
  EXPECT_TRUE(std::regex_match(utc_timestamp_now(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
}

TEST(Results, CrossRankSummaryKeepsHeadlineSkewAndEverySample) {
  CrossRankSummary summary;
  summary.headline_ms = 5;
  summary.slowest_rank = 1;
  summary.skew_ms = 3;
  summary.skew_ratio = 1.5;
  summary.ranks = {{0, 2, 2, 1, 3}, {1, 5, 5, 4, 6}};
  summary.samples_ms = {{1, 2, 3}, {6, 4, 5}};
  const nlohmann::json j = to_json(summary);
  EXPECT_EQ(j.at("headline_ms"), 5.0);
  EXPECT_EQ(j.at("slowest_rank"), 1);
  EXPECT_EQ(j.at("skew_ms"), 3.0);
  EXPECT_EQ(j.at("skew_ratio"), 1.5);
  ASSERT_EQ(j.at("ranks").size(), 2u);
  EXPECT_EQ(j.at("ranks")[1].at("median_ms"), 5.0);
  EXPECT_EQ(j.at("ranks")[1].at("samples_ms"), (std::vector<double>{6, 4, 5}));
}

TEST(Results, BenchResultKeepsFiguresAndSamples) {
  const nlohmann::json j = to_json(summarize_samples({3, 1, 2}, std::vector<double>{0.5}));
  EXPECT_EQ(j.at("median_ms"), 2.0);
  EXPECT_EQ(j.at("mean_ms"), 2.0);
  EXPECT_EQ(j.at("min_ms"), 1.0);
  EXPECT_EQ(j.at("max_ms"), 3.0);
  EXPECT_EQ(j.at("quantile_ms"), (std::vector<double>{2.0}));
  EXPECT_EQ(j.at("samples_ms"), (std::vector<double>{3, 1, 2}));
}

// NVML answers with the driver's version where a driver is loaded, "unknown" elsewhere;
// never an empty or half-filled string.
TEST(Results, NvidiaDriverVersionIsDottedNumbersOrUnknown) {
  const std::string version = nvidia_driver_version();
  const bool dotted = !version.empty() &&
                      version.find_first_not_of("0123456789.") == std::string::npos &&
                      version.find('.') != std::string::npos;
  EXPECT_TRUE(version == "unknown" || dotted) << version;
}

}  // namespace
}  // namespace symm
