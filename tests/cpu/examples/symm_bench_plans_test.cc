// `symm-bench gemm --plans` run for real with no GPU visible: the plan and the candidates
// tuning would time, best first, printed without any GPU work.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "run_program.hpp"
#include "symm/gemm/gemm.hpp"

namespace {

struct Listing {
  std::vector<std::string> plans;                    // each problem's plan line
  std::vector<std::vector<std::string>> candidates;  // each problem's candidate lines
};

Listing read_listing(const std::string& output) {
  Listing l;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  plan: ", 0) == 0) {
      l.plans.push_back(line);
      l.candidates.emplace_back();
    } else if (line.rfind("    ", 0) == 0 && !l.candidates.empty()) {
      l.candidates.back().push_back(line);
    }
  }
  return l;
}

symm::test::ProgramOutcome run_bench(const std::vector<std::string>& args, std::vector<std::string> env = {}) {
  env.push_back("CUDA_VISIBLE_DEVICES=");
  return symm::test::run_program(SYMM_PROGRAM_SYMM_BENCH, args, env);
}

// "    2. 1.040  200x128x64s4c2-swapped k_splits=1 blocks=132": the ratio and the configuration.
std::pair<double, std::string> ratio_and_config(const std::string& line) {
  std::istringstream in(line);
  std::string rank, config;
  double ratio = 0;
  in >> rank >> ratio >> config;
  return {ratio, config};
}

TEST(SymmBenchPlans, ListsThePlanAndTheTunersCandidatesBestFirstWithoutAGpu) {
  const auto out = run_bench({"gemm", "--mnk", "777", "4104", "8200", "--plans"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("no GPU visible: planned for an H200's limits: 132 SMs"), std::string::npos)
      << out.output;
  const Listing l = read_listing(out.output);
  ASSERT_EQ(l.plans.size(), 2u) << "bf16 and fp16: " << out.output;
  EXPECT_NE(out.output.find("777 x 4104 x 8200 bf16, B nk"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("777 x 4104 x 8200 fp16, B nk"), std::string::npos) << out.output;
  for (std::size_t i = 0; i < l.plans.size(); ++i) {
    EXPECT_NE(l.plans[i].find("M=777 N=4104 K=8200"), std::string::npos) << l.plans[i];
    ASSERT_EQ(l.candidates[i].size(), std::size_t(symm::gemm::kTuneCandidates)) << out.output;
    // The first candidate is the plan itself (ratio 1); the others cost as much or more.
    const auto [first_ratio, first_config] = ratio_and_config(l.candidates[i][0]);
    EXPECT_DOUBLE_EQ(first_ratio, 1.0) << l.candidates[i][0];
    EXPECT_NE(l.plans[i].find("wgmma " + first_config + " "), std::string::npos)
        << l.plans[i] << " vs " << l.candidates[i][0];
    double previous = first_ratio;
    for (const std::string& line : l.candidates[i]) {
      const double ratio = ratio_and_config(line).first;
      EXPECT_GE(ratio, previous) << line;
      previous = ratio;
    }
  }
}

TEST(SymmBenchPlans, AForcedConfigurationIsThePlanAndNothingIsTuned) {
  const auto out = run_bench({"gemm", "--mnk", "1024", "1024", "1024", "--dtype", "bf16", "--layout", "kn",
                              "--config", "128x256x64s4", "--plans"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const Listing l = read_listing(out.output);
  ASSERT_EQ(l.plans.size(), 1u) << out.output;
  EXPECT_NE(l.plans[0].find("wgmma 128x256x64s4 "), std::string::npos) << l.plans[0];
  EXPECT_NE(l.plans[0].find("configuration given"), std::string::npos) << l.plans[0];
  EXPECT_TRUE(l.candidates[0].empty()) << out.output;
}

// The H100's slower memory loads rows that straddle sectors slower (copy_choice.cc): on
// 12296 x 2792 x 1000 the H100's tuner took 152x256 swapped pairs over the H200's plan,
// 128x192 ping-pong pairs, 6-7 % faster (bench/results/gemm/2026-12-05-presets-9649a41-h100).
TEST(SymmBenchPlans, PlansForTheNamedGpusMemory) {
  const std::vector<std::string> problem{"gemm", "--mnk", "12296", "2792", "1000", "--dtype", "bf16", "--plans"};
  auto for_gpu = [&](const std::string& gpu) {
    std::vector<std::string> args = problem;
    args.insert(args.end(), {"--plans_for", gpu});
    return run_bench(args);
  };
  const auto h100 = for_gpu("h100"), h200 = for_gpu("h200");
  ASSERT_EQ(h100.exit_code, 0) << h100.output;
  ASSERT_EQ(h200.exit_code, 0) << h200.output;
  EXPECT_NE(h100.output.find("planned for an H100's limits: 132 SMs, 227 KiB of shared memory per block, 3.35 TB/s"),
            std::string::npos) << h100.output;
  const Listing on_h100 = read_listing(h100.output), on_h200 = read_listing(h200.output);
  ASSERT_EQ(on_h100.plans.size(), 1u) << h100.output;
  ASSERT_EQ(on_h200.plans.size(), 1u) << h200.output;
  EXPECT_NE(on_h100.plans[0].find("wgmma 152x256x64s4c2-swapped "), std::string::npos) << on_h100.plans[0];
  EXPECT_NE(on_h200.plans[0].find("wgmma 128x192x64s4c2-pingpong "), std::string::npos) << on_h200.plans[0];
  // Without --plans nothing is planned: said, not ignored.
  std::vector<std::string> no_plans{"gemm", "--mnk", "64", "64", "64", "--plans_for", "h100"};
  const auto refused = run_bench(no_plans);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("add --plans"), std::string::npos) << refused.output;
}

// Options the planner refuses for the problem: said as a run would say it, exit code 2.
TEST(SymmBenchPlans, APlanRefusedForTheOptionsIsABadCommandLine) {
  const auto out = run_bench({"gemm", "--mnk", "640", "512", "320", "--config", "128x128x64s6-pingpong", "--plans"},
                             {"SYMM_GEMM_SPLITS=2"});
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("SYMM_GEMM_SPLITS"), std::string::npos) << out.output;
}

}  // namespace
