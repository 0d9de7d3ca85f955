// The tuned-plan cache without a GPU: round trip, keys, the first record winning, files
// that are corrupt, of another version or unreadable (ignored, never a crash), the
// location from the environment, and processes writing at once (no entry lost, no torn file).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "scoped_env.hpp"
#include "fake_problem.hpp"
#include "symm/gemm/plan_cache.hpp"

namespace symm::gemm {
namespace {

namespace fs = std::filesystem;
using test::fake;
using test::problem;

// A fresh directory per test, removed afterwards.
class PlanCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "symm-plan-cache-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = (dir_ / "sub" / "gemm-plans.json").string();  // the directory is created on the first write
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write_file(const std::string& text) const {
    fs::create_directories(fs::path(path_).parent_path());
    std::ofstream(path_) << text;
  }
  nlohmann::json read_file() const {
    std::ifstream in(path_);
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
  }

  const DeviceLimits h200_;
  const GemmProblem p_ = problem(8192, 4608, 36864);
  const std::vector<Plan> candidates_ = candidate_plans(p_, {}, h200_, 4);
  const std::string key_ = plan_cache_key("NVIDIA H200", h200_, p_, {}, candidates_);
  fs::path dir_;
  std::string path_;
};

bool same_plan(const Plan& a, const Plan& b) {
  return a.kind == b.kind && a.config == b.config && a.sched.k_splits == b.sched.k_splits &&
         a.sched.stream_k() == b.sched.stream_k() && a.num_blocks == b.num_blocks;
}

TEST_F(PlanCacheTest, RecordedPlanIsFoundByLaterCaches) {
  ASSERT_EQ(candidates_.size(), 4u);
  const PlanCache cache(path_);
  EXPECT_FALSE(cache.find(key_, candidates_).has_value());
  EXPECT_TRUE(same_plan(cache.record(key_, candidates_[2], candidates_), candidates_[2]));
  const auto found = PlanCache(path_).find(key_, candidates_);  // as another process would
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(same_plan(*found, candidates_[2]));
  EXPECT_NE(found->reason.find(path_), std::string::npos) << found->reason;
}

// Ranks tuning at once: whoever records first decides for all.
TEST_F(PlanCacheTest, FirstRecordWins) {
  const PlanCache cache(path_);
  cache.record(key_, candidates_[1], candidates_);
  EXPECT_TRUE(same_plan(cache.record(key_, candidates_[3], candidates_), candidates_[1]));
  EXPECT_TRUE(same_plan(*cache.find(key_, candidates_), candidates_[1]));
}

TEST_F(PlanCacheTest, KeysTellGpuProblemTypesLayoutAndOptionsApart) {
  std::vector<std::string> keys{key_};
  keys.push_back(plan_cache_key("NVIDIA H100 80GB HBM3", h200_, p_, {}, candidates_));
  DeviceLimits mig = h200_;
  mig.sm_count = 60;
  keys.push_back(plan_cache_key("NVIDIA H200", mig, p_, {}, candidates_));
  for (auto change : {+[](GemmProblem& q) { q.m += 1; }, +[](GemmProblem& q) { q.n += 8; },
                      +[](GemmProblem& q) { q.k += 8; }, +[](GemmProblem& q) { q.in_dtype = DType::fp16; },
                      +[](GemmProblem& q) { q.out_dtype = DType::fp32; },
                      +[](GemmProblem& q) { q.b_layout = BLayout::kn; }}) {
    GemmProblem q = p_;
    change(q);
    keys.push_back(plan_cache_key("NVIDIA H200", h200_, q, {}, candidates_));
  }
  for (auto change : {+[](GemmOptions& o) { o.num_blocks = 100; }, +[](GemmOptions& o) { o.gsize_m = 4; },
                      +[](GemmOptions& o) { o.k_splits = 2; }, +[](GemmOptions& o) { o.stream_k = -1; },
                      +[](GemmOptions& o) { o.pingpong = 0; }, +[](GemmOptions& o) { o.clusters = 0; },
                      +[](GemmOptions& o) { o.operand_copies = false; }}) {
    GemmOptions o;
    change(o);
    keys.push_back(plan_cache_key("NVIDIA H200", h200_, p_, o, candidates_));
  }
  keys.push_back(plan_cache_key("NVIDIA H200", h200_, p_, {}, candidate_plans(p_, {}, h200_, 8)));
  // Operands read through copies are part of what is timed: A whose rows straddle sectors
  // gets candidates that copy it, or read it in place more slowly.
  std::vector<Plan> copying = candidates_;
  copying.front().copies.a = every_copy(p_).a;
  keys.push_back(plan_cache_key("NVIDIA H200", h200_, p_, {}, copying));
  for (std::size_t i = 0; i < keys.size(); ++i)
    for (std::size_t j = i + 1; j < keys.size(); ++j) EXPECT_NE(keys[i], keys[j]) << i << " and " << j;

  // Strides and addresses are not part of the key (the candidates are rebuilt for them).
  GemmProblem padded = p_;
  padded.lda += 64;
  padded.c = fake(0x40000);
  EXPECT_EQ(plan_cache_key("NVIDIA H200", h200_, padded, {}, candidates_), key_);
  GemmOptions verbose;
  verbose.verbose = true;
  EXPECT_EQ(plan_cache_key("NVIDIA H200", h200_, p_, verbose, candidates_), key_);

  const PlanCache cache(path_);
  cache.record(key_, candidates_[0], candidates_);
  for (std::size_t i = 1; i < keys.size(); ++i) EXPECT_FALSE(cache.find(keys[i], candidates_).has_value()) << keys[i];
}

// A record that names none of the current candidates (another build's heuristic) is re-tuned.
TEST_F(PlanCacheTest, RecordOfNoCurrentCandidateIsIgnored) {
  const PlanCache cache(path_);
  const auto other = candidate_plans(problem(4096, 576, 36864), {}, h200_, 1);
  cache.record(key_, other[0], other);
  EXPECT_FALSE(cache.find(key_, candidates_).has_value());
  // Recording again replaces nothing that a candidate could use: the new choice is kept.
  EXPECT_TRUE(same_plan(cache.record(key_, candidates_[2], candidates_), candidates_[2]));
}

TEST_F(PlanCacheTest, CorruptOrForeignFilesAreIgnoredThenReplaced) {
  const PlanCache cache(path_);
  // Version 1: plans tuned before tune kept the heuristic's plan within a margin; 2: before
  // choices named their operand copies.
  for (const char* text : {"{not json", "[1, 2]", R"({"version": 3, "plans": []})", R"({"plans": {}})",
                           R"({"version": "3", "plans": {}})", R"({"version": 999, "plans": {}})",
                           R"({"version": 1, "plans": {}})", R"({"version": 2, "plans": {}})", ""}) {
    write_file(text);
    EXPECT_FALSE(cache.find(key_, candidates_).has_value()) << text;
    EXPECT_TRUE(same_plan(cache.record(key_, candidates_[1], candidates_), candidates_[1])) << text;
    EXPECT_TRUE(same_plan(*cache.find(key_, candidates_), candidates_[1])) << text;
    EXPECT_EQ(read_file()["version"], 3) << text;
  }
  // An entry of the wrong type is no record.
  write_file(R"({"version": 3, "plans": {")" + key_ + R"(": 42}})");
  EXPECT_FALSE(cache.find(key_, candidates_).has_value());
}

TEST_F(PlanCacheTest, UnwritableLocationOnlyWarns) {
  fs::create_directories(path_);  // a directory where the file should be
  const PlanCache cache(path_);
  EXPECT_FALSE(cache.find(key_, candidates_).has_value());
  EXPECT_TRUE(same_plan(cache.record(key_, candidates_[2], candidates_), candidates_[2]));
  fs::remove_all(path_);
  write_file("{}");  // now a file stands where the cache's directory should be
  const PlanCache blocked((fs::path(path_) / "plans.json").string());
  EXPECT_TRUE(same_plan(blocked.record(key_, candidates_[0], candidates_), candidates_[0]));
}

// A lock that stays taken (a stopped process holding it) delays recording by a bounded
// wait, after which the plan is used unrecorded: tuning never hangs on the cache.
TEST_F(PlanCacheTest, LockHeldElsewhereEndsInABoundedWait) {
  fs::create_directories(fs::path(path_).parent_path());
  const int holder = ::open((path_ + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(holder, 0);
  ASSERT_EQ(::flock(holder, LOCK_EX), 0);  // another open file description: it conflicts
  const PlanCache cache(path_);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(same_plan(cache.record(key_, candidates_[2], candidates_), candidates_[2]));
  const double waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(waited_s, 1.0) << "it did not wait for the lock at all";
  EXPECT_LT(waited_s, 30.0) << "the wait for the lock is not bounded";
  EXPECT_FALSE(cache.find(key_, candidates_).has_value()) << "recorded without the lock";
  ::close(holder);
  EXPECT_TRUE(same_plan(cache.record(key_, candidates_[1], candidates_), candidates_[1]));
  EXPECT_TRUE(same_plan(*cache.find(key_, candidates_), candidates_[1]));
}

TEST_F(PlanCacheTest, DisabledCacheKeepsNothing) {
  const PlanCache off("");
  EXPECT_FALSE(off.enabled());
  EXPECT_TRUE(same_plan(off.record(key_, candidates_[2], candidates_), candidates_[2]));
  EXPECT_FALSE(off.find(key_, candidates_).has_value());
}

// An empty variable counts as unset.
TEST(PlanCacheLocation, FromTheEnvironment) {
  {
    ScopedEnv cache("SYMM_GEMM_PLAN_CACHE", "off");
    EXPECT_FALSE(PlanCache::from_env().enabled());
  }
  {
    ScopedEnv cache("SYMM_GEMM_PLAN_CACHE", "/shared/plans.json");
    EXPECT_EQ(PlanCache::from_env().path(), "/shared/plans.json");
  }
  ScopedEnv cache("SYMM_GEMM_PLAN_CACHE", "");
  ScopedEnv home("HOME", "/home/u");
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(PlanCache::from_env().path(), "/xdg/symm/gemm-plans.json");
  }
  ScopedEnv xdg("XDG_CACHE_HOME", "");
  EXPECT_EQ(PlanCache::from_env().path(), "/home/u/.cache/symm/gemm-plans.json");
}

// Forks `count` children running f(i) and returns their exit codes.
template <class F>
std::vector<int> in_children(int count, F f) {
  std::vector<pid_t> pids;
  for (int i = 0; i < count; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(f(i));
    pids.push_back(pid);
  }
  std::vector<int> codes;
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  return codes;
}

// Processes recording at once lose no entry, and a reader never sees a torn file.
TEST_F(PlanCacheTest, ConcurrentWritersKeepEveryEntry) {
  constexpr int kWriters = 6, kKeys = 20;
  const PlanCache cache(path_);
  const auto codes = in_children(kWriters + 1, [&](int i) {
    if (i == kWriters) {  // the reader: until it has read the file 400 times
      int read = 0;
      for (int r = 0; r < 1000000 && read < 400; ++r) {
        std::ifstream in(path_);
        if (!in) continue;
        std::stringstream text;
        text << in.rdbuf();
        if (!nlohmann::json::accept(text.str())) return 1;
        ++read;
      }
      return read > 0 ? 0 : 2;  // 2: the writers' file never appeared
    }
    for (int j = 0; j < kKeys; ++j)
      cache.record(key_ + " writer " + std::to_string(i) + " #" + std::to_string(j), candidates_[j % 4],
                   candidates_);
    return 0;
  });
  for (int code : codes) EXPECT_EQ(code, 0);
  for (int i = 0; i < kWriters; ++i)
    for (int j = 0; j < kKeys; ++j) {
      const auto found = cache.find(key_ + " writer " + std::to_string(i) + " #" + std::to_string(j), candidates_);
      ASSERT_TRUE(found.has_value()) << "writer " << i << " #" << j << " lost";
      EXPECT_TRUE(same_plan(*found, candidates_[j % 4]));
    }
}

// Every rank of a job tuning the same problem at once ends with the same plan.
TEST_F(PlanCacheTest, RanksTuningAtOnceAgree) {
  const PlanCache cache(path_);
  const auto chosen = in_children(8, [&](int rank) {
    const Plan got = cache.record(key_, candidates_[rank % 4], candidates_);
    for (int i = 0; i < 4; ++i)
      if (same_plan(got, candidates_[i])) return i;
    return 99;
  });
  for (int c : chosen) EXPECT_EQ(c, chosen[0]);
  EXPECT_LT(chosen[0], 4);
}

}  // namespace
}  // namespace symm::gemm
