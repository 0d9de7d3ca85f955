// The GEMM + all-scatter program on a GPU, two ranks sharing it: problems larger than the
// GPU's memory. A single run is refused with what it needs and has; a sweep skips such a
// point and measures the others (the heap is sized for a launch's largest point, so one
// too large once failed every point, on every resume).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gpu_presence.hpp"
#include "run_program.hpp"

namespace {

using namespace std::chrono_literals;

// C alone is 512 GiB in bf16: more than any GPU of ours holds.
constexpr const char* kTooLarge = "524288";

bool says(const symm::test::ProgramOutcome& out, const std::string& what) {
  return out.output.find(what) != std::string::npos;
}

TEST(ProgramOnGpu, ARunTooLargeForTheGpuIsRefusedWithWhatItNeeds) {
  SYMM_REQUIRE_GPUS(1);
  symm::test::share_first_visible_gpu();
  const symm::test::ProgramOutcome out = symm::test::run_program(
      SYMM_ALL_SCATTER_PROGRAM, {"-r", "2", "-m", kTooLarge, "-n", kTooLarge, "-k", "4096", "-o", ""}, {}, 120s);
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_TRUE(says(out, "needs about")) << out.output;
  EXPECT_TRUE(says(out, "as a smaller shape")) << out.output;
}

TEST(ProgramOnGpu, ASweepSkipsAPointTooLargeForTheGpuAndMeasuresTheRest) {
  SYMM_REQUIRE_GPUS(1);
  symm::test::share_first_visible_gpu();
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "symm-sweep-too-large";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string preset = (dir / "preset.json").string(), results = (dir / "sweep.jsonl").string();
  std::ofstream(preset) << R"({"sizes": [[2048, 2048, 1024], [)" << kTooLarge << ", " << kTooLarge
                        << R"(, 4096]], "ranks": [2], "variants": ["wg_specialization"], "baselines": false,
                            "n_warmup": 1, "n_repeat": 3})";
  for (int session = 1; session <= 2; ++session) {  // and again on resume
    SCOPED_TRACE("session " + std::to_string(session));
    const symm::test::ProgramOutcome out =
        symm::test::run_program(SYMM_ALL_SCATTER_PROGRAM, {"--preset", preset, "-o", results}, {}, 240s);
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_TRUE(says(out, "needs about")) << out.output;
    // The skip is tried again on resume (a later run may have the memory), the measured
    // point is not.
    EXPECT_TRUE(says(out, "1 of 2 points measured, 1 skipped")) << out.output;
  }
}

}  // namespace
