// Sweeps without a GPU: the sweep file and resuming it after an interruption at a random
// point, whole sweeps run with no GPU visible (what is skipped, what is counted), and the
// progress line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "driver.hpp"
#include "sweep_file.hpp"
#include "sweep_preset.hpp"
#include "sweep_progress.hpp"
#include "symm/common/error.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A sweep file written and read without flags or variables beside its preset.
const json kNoSettings = json::object();

const std::string kPresets = SYMM_SOURCE_DIR "/bench/presets/";

class SweepFileTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fs::path("symm-sweep-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    path_ = (dir_ / "sweep.jsonl").string();
    preset_ = load_preset(kPresets + "default.json");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void finish(const SweepFile& file, const SweepPoint& p, json row = {{"valid", true}}) {
    file.append(started_line(p.key));
    file.append(result_line(p.key, 1.5, RunInfo{}, {row}));
  }
  int result_lines() {
    std::ifstream in(path_);
    int n = 0;
    for (std::string line; std::getline(in, line);) n += json::parse(line).contains("point");
    return n;
  }

  fs::path dir_;
  std::string path_;
  SweepPreset preset_;
};

// The writing rank killed mid-line by the supervisor while the sweep goes on (its next
// launch reads the file before measuring): the torn line is dropped, not taken for a file
// that is not a sweep, and the next line appended starts a line of its own.
TEST_F(SweepFileTest, ALineTornDuringTheSweepIsDroppedBeforeTheNextLaunchReads) {
  const std::vector<SweepPoint> points = expand(preset_);
  ASSERT_GE(points.size(), 2u);
  const SweepFile file(path_, "default.json", preset_.source, kNoSettings);
  finish(file, points[0]);
  std::ofstream(path_, std::ios::app) << R"({"schema": "symm.results/1", "point": ")";  // killed mid-write
  SweepState state;
  ASSERT_NO_THROW(state = file.read());
  EXPECT_EQ(state.finished.size(), 1u);
  finish(file, points[1]);
  EXPECT_EQ(file.read().finished.size(), 2u);
  EXPECT_EQ(result_lines(), 2);  // every line parses: the new one did not join the torn one
}

TEST_F(SweepFileTest, ResumesAfterAnInterruptionAtARandomPoint) {
  const std::vector<SweepPoint> points = expand(preset_);
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  const std::size_t cut = std::uniform_int_distribution<std::size_t>(0, points.size() - 1)(random);
  {
    const SweepFile file(path_, "default.json", preset_.source, kNoSettings);
    for (std::size_t i = 0; i < cut; ++i) finish(file, points[i]);
    file.append(started_line(points[cut].key));
    std::ofstream(path_, std::ios::app) << R"({"schema": "symm.results/1", "point": ")";  // killed mid-write
  }
  const SweepFile file(path_, "default.json", preset_.source, kNoSettings);  // drops the torn line
  SweepState state = file.read();
  EXPECT_EQ(state.finished.size(), cut);
  EXPECT_EQ(state.interrupted, points[cut].key);
  EXPECT_EQ(state.started, int(cut) + 1);  // a later launch that starts none is told apart
  const std::vector<SweepPoint> left = unfinished(points, state);
  ASSERT_EQ(left.size(), points.size() - cut);
  EXPECT_EQ(left.front().key, points[cut].key);  // the interrupted point is measured again
  for (const SweepPoint& p : left) finish(file, p);
  state = file.read();
  EXPECT_TRUE(unfinished(points, state).empty());
  EXPECT_FALSE(state.interrupted);
  EXPECT_EQ(result_lines(), int(points.size()));  // no point measured twice
  EXPECT_EQ(state.seconds.size(), points.size());
}

TEST_F(SweepFileTest, FailedAndInvalidPointsAreFinishedAndCounted) {
  const std::vector<SweepPoint> points = expand(preset_);
  const SweepFile file(path_, "default.json", preset_.source, kNoSettings);
  finish(file, points[0], {{"valid", false}});
  finish(file, points[1], {{"variant", nullptr}, {"failed", "the ranks ended with exit code 1"}});
  finish(file, points[2], {{"valid", nullptr}, {"skipped", "4 ranks need 4 GPUs"}});
  const SweepState state = file.read();
  EXPECT_EQ(state.finished.size(), 3u);
  EXPECT_EQ(state.failed, (std::vector<std::string>{points[0].key, points[1].key}));
}

TEST_F(SweepFileTest, AnotherPresetsFileIsRefused) {
  { const SweepFile file(path_, "default.json", preset_.source, kNoSettings); }
  const SweepPreset other = load_preset(kPresets + "short.json");
  try {
    const SweepFile file(path_, "short.json", other.source, kNoSettings);
    FAIL() << "resumed a sweep of another preset";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("another preset (default.json)"), std::string::npos) << e.what();
  }
  std::ofstream(dir_ / "results.json") << R"({"schema": "symm.results/1", "rows": []})" << "\n";
  EXPECT_THROW(SweepFile((dir_ / "results.json").string(), "default.json", preset_.source, kNoSettings), Error);
}

// Flags and variables beside the preset that change what is measured must be those the
// file was measured with: a resume with another --gemm_sms, or without a SYMM_GEMM_*
// variable set then, would mix points measured two ways.
TEST_F(SweepFileTest, AResumeWithOtherSettingsIsRefusedNamingTheSetting) {
  const json then = {{"--gemm_sms", 0}, {"--n_repeat", nullptr}, {"SYMM_GEMM_SPLITS", "2"}};
  { const SweepFile file(path_, "default.json", preset_.source, then); }
  EXPECT_EQ(sweep_file_problem(path_, "default.json", preset_.source, then), "");
  json other_blocks = then;
  other_blocks["--gemm_sms"] = 64;
  EXPECT_NE(sweep_file_problem(path_, "default.json", preset_.source, other_blocks)
                .find("measured with --gemm_sms = 0, and this run has 64"),
            std::string::npos);
  json unset = then;
  unset.erase("SYMM_GEMM_SPLITS");
  EXPECT_NE(sweep_file_problem(path_, "default.json", preset_.source, unset)
                .find("SYMM_GEMM_SPLITS = \"2\", and this run has unset"),
            std::string::npos);
  EXPECT_THROW(SweepFile(path_, "default.json", preset_.source, other_blocks), Error);
}

// A file that is not a sweep is refused untouched: its last line used to be cut off as
// "torn" before the header was looked at (a Chrome trace has no final newline).
TEST_F(SweepFileTest, AFileThatIsNotASweepIsRefusedUntouched) {
  const std::string trace = R"({"traceEvents": [{"name": "tile 0"}]})";
  const std::string text = "notes\nmore notes, no newline";
  for (const auto& [name, contents] : {std::pair{"run.trace.json", trace}, std::pair{"notes.txt", text}}) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << contents;
    EXPECT_NE(sweep_file_problem(path, "default.json", preset_.source, kNoSettings).find("has no sweep header"), std::string::npos);
    EXPECT_THROW(SweepFile(path, "default.json", preset_.source, kNoSettings), Error) << name;
    std::ifstream in(path);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), contents) << name << " was changed";
  }
}

// A point skipped for what this machine lacks (4 ranks, fewer GPUs) counts as done only in
// the session that skipped it: a resume, perhaps on a bigger machine, runs it again.
TEST_F(SweepFileTest, SkippedPointsAreTriedAgainOnResume) {
  const std::vector<SweepPoint> points = expand(preset_);
  const json skip = {{"variant", nullptr}, {"skipped", "4 ranks need 4 GPUs and 1 is visible"}};
  {
    const SweepFile file(path_, "default.json", preset_.source, kNoSettings);
    finish(file, points[0]);
    file.append(result_line(points[1].key, 0, RunInfo{}, {skip}));
    const SweepState state = file.read();
    EXPECT_TRUE(state.finished.contains(points[1].key)) << "not tried twice in one session";
    EXPECT_EQ(count_points({points[0], points[1]}, state).skipped, 1);
  }
  const SweepFile resumed(path_, "default.json", preset_.source, kNoSettings);
  SweepState state = resumed.read();
  EXPECT_TRUE(state.finished.contains(points[0].key));
  EXPECT_FALSE(state.finished.contains(points[1].key));
  EXPECT_EQ(unfinished({points[0], points[1]}, state).size(), 1u);
  EXPECT_EQ(state.seconds.size(), 1u) << "a skip took no measuring time";
  finish(resumed, points[1]);  // this machine runs it
  state = resumed.read();
  EXPECT_TRUE(state.finished.contains(points[1].key));
  const SweepCounts counts = count_points({points[0], points[1]}, state);
  EXPECT_EQ(counts.measured, 2);
  EXPECT_EQ(counts.skipped, 0);
}

// Hides every GPU (CUDA_VISIBLE_DEVICES=""), so that a 4-rank point is skipped on any
// machine and the sweep launches nothing.
class NoGpusVisible {
 public:
  NoGpusVisible() {
    if (const char* v = std::getenv(kName)) saved_ = v;
    ::setenv(kName, "", 1);
  }
  ~NoGpusVisible() {
    if (saved_)
      ::setenv(kName, saved_->c_str(), 1);
    else
      ::unsetenv(kName);
  }
  NoGpusVisible(const NoGpusVisible&) = delete;
  NoGpusVisible& operator=(const NoGpusVisible&) = delete;

 private:
  static constexpr const char* kName = "CUDA_VISIBLE_DEVICES";
  std::optional<std::string> saved_;
};

struct ProgramRun {
  int code = 0;
  std::string stderr_text;
};

// The program's driver, in this process, as main() runs it.
ProgramRun run_program(std::vector<std::string> args) {
  args.insert(args.begin(), "10_test");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  const NoGpusVisible no_gpus;
  ProgramRun r;
  testing::internal::CaptureStderr();
  r.code = run(int(argv.size()), argv.data(), {"10_test", "test", ops::ScatterVariant::tma_push});
  r.stderr_text = testing::internal::GetCapturedStderr();
  return r;
}

class SweepRunTest : public SweepFileTest {
 protected:
  void SetUp() override {
    SweepFileTest::SetUp();
    preset_path_ = (dir_ / "one_and_four.json").string();
    std::ofstream(preset_path_) << R"({"sizes": [[4096, 4608, 8192]], "ranks": [1, 4]})";
    preset_ = load_preset(preset_path_);
  }
  std::string preset_path_;
};

// -r 4 covers the 4-rank point only: a failure recorded for the 1-rank point is another
// run's, and neither fails this one nor counts in its summary.
TEST_F(SweepRunTest, OneRankCountCountsOnlyItsOwnPointsFailures) {
  {
    // Written as the program writes it: with the settings of its command line (defaults).
    const SweepFile file(path_, preset_path_, preset_.source, sweep_settings(CommandLine{}));
    finish(file, expand(preset_).front(), {{"variant", nullptr}, {"failed", "the ranks ended with exit code 1"}});
  }
  const ProgramRun r = run_program({"--preset", preset_path_, "-r", "4", "-o", path_});
  EXPECT_EQ(r.code, 0) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("0 of 1 points measured, 1 skipped"), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find(", 0 failed"), std::string::npos) << r.stderr_text;
}

// A skipped point is tried again by the next run (here skipped again, with its reason, as
// this machine still lacks the GPUs); skips alone still exit 0, and the summary counts them.
TEST_F(SweepRunTest, SkippedPointsAreTriedAgainAndCountedInTheSummary) {
  for (int session = 1; session <= 2; ++session) {
    const ProgramRun r = run_program({"--preset", preset_path_, "-r", "4", "-o", path_});
    EXPECT_EQ(r.code, 0) << r.stderr_text;
    EXPECT_NE(r.stderr_text.find("0 of 1 points measured, 1 skipped"), std::string::npos) << r.stderr_text;
    EXPECT_EQ(result_lines(), session) << "the skipped point is tried in each session";
  }
}

TEST(SweepProgress, SaysDoneLeftAndTimeLeft) {
  EXPECT_EQ(duration_text(45), "45s");
  EXPECT_EQ(duration_text(432), "7m12s");
  EXPECT_EQ(duration_text(3720), "1h02m");
  EXPECT_FALSE(seconds_left({}, 3));
  EXPECT_DOUBLE_EQ(*seconds_left({10, 20}, 3), 45);
  EXPECT_EQ(progress_text(12, 60, 432.0), "[####----------------] 12/60 points, 48 left, about 7m12s to go");
  EXPECT_EQ(progress_text(0, 4, std::nullopt, 4), "[----] 0/4 points, 4 left, time left not known yet");
}

// Rows as a 2-rank point writes them (report.cc), trimmed to what the summary reads.
std::vector<nlohmann::json> point_rows(bool shared) {
  const auto variant = [&](const char* name, double tflops, int blk_n) {
    return nlohmann::json{{"variant", name}, {"tflops", tflops}, {"BLK_M", 128}, {"BLK_N", blk_n},
                          {"BLK_K", 64}, {"num_stages", 4}, {"ratio_vs_gemm_alone", 1.03},
                          {"speedup_vs_baseline", 1.012}, {"baseline", "cublaslt+nccl"},
                          {"valid", true}, {"skipped", nullptr}, {"ranks_share_gpus", shared}};
  };
  return {variant("wg_specialization", 701.5, 256), variant("tma_push", 758.6, 192),
          {{"variant", nullptr}, {"tflops", 1521.6}, {"valid", nullptr}, {"skipped", nullptr},
           {"ranks_share_gpus", shared}},
          {{"variant", nullptr}, {"tflops", 0}, {"valid", nullptr}, {"skipped", "NCCL needs a GPU per rank"},
           {"ranks_share_gpus", shared}}};
}

TEST(SweepProgress, ThePointSummaryNamesTheFastestVariantAndWhatWentWrong) {
  EXPECT_EQ(point_summary(point_rows(false)),
            "best tma_push 128x192x64s4 758.6 TFLOP/s, 1.03x gemm_alone, 1.01x faster than "
            "cublaslt+nccl; 1 skipped");
  std::vector<nlohmann::json> rows = point_rows(false);
  rows[0]["valid"] = false;
  EXPECT_EQ(point_summary(rows).substr(point_summary(rows).rfind(';')), "; validation FAILED for 1");
  EXPECT_EQ(point_summary({rows[2]}), "nothing measured");
}

// Ranks sharing a GPU take turns on it: their times are a correctness run's, and the
// gemm_alone row's TFLOP/s (each rank's GEMM timed in its own slice) exceed the GPU's peak.
TEST(SweepProgress, ThePointSummarySaysWhenRanksSharedGpus) {
  const std::string summary = point_summary(point_rows(true));
  EXPECT_EQ(summary.substr(0, summary.find(';')),
            "best tma_push 128x192x64s4 758.6 TFLOP/s, 1.03x gemm_alone, 1.01x faster than cublaslt+nccl");
  EXPECT_TRUE(summary.ends_with("; 1 skipped; ranks share GPUs: a correctness run, not speed")) << summary;
}

}  // namespace
}  // namespace symm::examples::gemm_all_scatter
