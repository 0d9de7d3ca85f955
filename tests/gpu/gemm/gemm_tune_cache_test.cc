// Gemm::tune with the plan cache (SYMM_GEMM_PLAN_CACHE): the first tune times the
// candidates and records its choice; a second Gemm, as a later run or another rank would,
// gets the recorded plan without timing.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gemm_vs_cublas.hpp"
#include "symm/gemm/gemm.hpp"

namespace symm::gemm::test {
namespace {

TEST(GemmTuneCache, SecondTuneGetsTheRecordedPlan) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(true); !why.empty()) GTEST_SKIP() << why;
  std::string dir = "/tmp/symm-tune-cache-XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  const std::string path = dir + "/plans.json";
  ASSERT_EQ(::setenv("SYMM_GEMM_PLAN_CACHE", path.c_str(), 1), 0);

  // A skinny shard: several candidate plans (tile shapes, split factors) to time.
  const std::int64_t m = 1024, n = 576, k = 16384;
  const std::size_t a_bytes = m * k * 2, b_bytes = n * k * 2;
  DeviceBuffer a(a_bytes, "A"), b(b_bytes, "B"), c(m * n * 2, "C");
  SYMM_TEST_CUDA(cudaMemset(a.get(), 0, a_bytes));
  SYMM_TEST_CUDA(cudaMemset(b.get(), 0, b_bytes));
  const GemmProblem p{m, n, k, a.get(), k, b.get(), k, BLayout::nk, c.get(), n, DType::bf16, DType::bf16};
  const Plan tuned = Gemm().tune(p, nullptr);
  const Plan recorded = Gemm().tune(p, nullptr);
  ::unsetenv("SYMM_GEMM_PLAN_CACHE");
  std::remove(path.c_str());
  std::remove((path + ".lock").c_str());
  ::rmdir(dir.c_str());

  EXPECT_EQ(tuned.reason.rfind("tuned: ", 0), 0u) << tuned.reason;  // timed, not read from a file
  // It says what the choice rests on: every candidate's median over the heuristic plan's,
  // that plan first (1.000), the chosen one among them.
  const std::string label = "; medians over the heuristic's: ";
  const std::size_t medians = tuned.reason.find(label);
  ASSERT_NE(medians, std::string::npos) << tuned.reason;
  const std::string list = tuned.reason.substr(medians + label.size());
  EXPECT_EQ(list.rfind(to_string(Gemm().plan(p).config) + " ", 0), 0u) << list;
  EXPECT_NE(list.find(" 1.000"), std::string::npos) << list;
  EXPECT_GE(std::count(list.begin(), list.end(), ','), 1) << list;  // several candidates timed
  EXPECT_NE(list.find(to_string(tuned.config)), std::string::npos) << list;
  EXPECT_NE(recorded.reason.find(path), std::string::npos) << recorded.reason;
  EXPECT_EQ(recorded.config, tuned.config);
  EXPECT_EQ(recorded.sched.k_splits, tuned.sched.k_splits);
  EXPECT_EQ(recorded.sched.stream_k(), tuned.sched.stream_k());
  EXPECT_EQ(recorded.num_blocks, tuned.num_blocks);
}

}  // namespace
}  // namespace symm::gemm::test
