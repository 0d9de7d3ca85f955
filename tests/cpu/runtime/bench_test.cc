// do_bench with a fake device and a fake clock: call counts and order, the timed/untimed
// split, statistics, return modes, the choice of the fastest candidate, and the
// cross-rank summary.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "symm/common/error.hpp"
#include "symm/host/bench.hpp"
#include "thread_team.hpp"

namespace symm {
namespace {

// Time advances only when something "runs": fn by its scripted duration, the preamble
// and the flush by large amounts that would be obvious in any sample.
struct FakeClock {
  double now_ms = 0;
  std::string trace;  // B barrier, P preamble, F flush, f fn, [ ] timed region
  std::vector<double> fn_durations_ms;  // by call; the last one repeats
  int fn_calls = 0, barriers = 0, preambles = 0, flushes = 0, timed = 0;

  void fn() {
    const auto index = static_cast<std::size_t>(fn_calls++);
    now_ms += fn_durations_ms.empty() ? 1.0
                                      : fn_durations_ms[std::min(index, fn_durations_ms.size() - 1)];
    trace += 'f';
  }
  void barrier() {
    ++barriers;
    trace += 'B';
  }
  void preamble() {
    ++preambles;
    now_ms += 1000.0;
    trace += 'P';
  }
};

class FakeDevice final : public BenchDevice {
 public:
  explicit FakeDevice(FakeClock& clock) : clock_(clock) {}
  void flush_l2() override {
    ++clock_.flushes;
    clock_.now_ms += 500.0;
    clock_.trace += 'F';
  }
  double time_ms(const std::function<void()>& fn) override {
    ++clock_.timed;
    clock_.trace += '[';
    const double start = clock_.now_ms;
    fn();
    clock_.trace += ']';
    return clock_.now_ms - start;
  }

 private:
  FakeClock& clock_;
};

BenchResult run(FakeClock& clock, const BenchOptions& options) {
  FakeDevice device(clock);
  return do_bench(device, [&] { clock.fn(); }, [&] { clock.barrier(); },
                  [&] { clock.preamble(); }, options);
}

TEST(DoBench, CallsHappenInIrisOrder) {
  FakeClock clock;
  BenchOptions options;
  options.n_warmup = 1;
  options.n_repeat = 2;
  run(clock, options);
  EXPECT_EQ(clock.trace, std::string("BPfB") +  // untimed first call
                             "BPFBf" +           // warmup
                             "BPFB[f]" + "BPFB[f]" + "B");
}

TEST(DoBench, CountsMatchTheDefaultOptions) {
  FakeClock clock;
  const BenchOptions options;  // 25 warmup, 100 timed
  const BenchResult result = run(clock, options);
  EXPECT_EQ(clock.fn_calls, 1 + 25 + 100);
  EXPECT_EQ(clock.barriers, 2 + 2 * 125 + 1);
  EXPECT_EQ(clock.preambles, 1 + 125);
  EXPECT_EQ(clock.flushes, 125);
  EXPECT_EQ(clock.timed, 100);
  EXPECT_EQ(result.samples_ms.size(), 100u);
}

TEST(DoBench, PreambleAndFlushAreNeverTimed) {
  FakeClock clock;
  // fn's calls take 7, 7, ... ms except the timed ones, scripted below.
  clock.fn_durations_ms = {7, 7, 7, 2, 3, 4};  // 1 untimed + 2 warmup + 3 timed
  BenchOptions options;
  options.n_warmup = 2;
  options.n_repeat = 3;
  const BenchResult result = run(clock, options);
  EXPECT_EQ(result.samples_ms, (std::vector<double>{2, 3, 4}));
  EXPECT_GT(clock.now_ms, 1000.0 * 6);  // the preamble did run, the clock did move
}

TEST(DoBench, StatisticsAndQuantilesInterpolateBetweenSamples) {
  FakeClock clock;
  clock.fn_durations_ms = {9, 5, 1, 4, 2, 3};  // untimed, then timed 5 1 4 2 3
  BenchOptions options;
  options.n_warmup = 0;
  options.n_repeat = 5;
  options.quantiles = {0.0, 0.1, 0.25, 0.5, 1.0};
  const BenchResult r = run(clock, options);
  EXPECT_EQ(r.samples_ms, (std::vector<double>{5, 1, 4, 2, 3}));  // in order, all kept
  EXPECT_DOUBLE_EQ(r.mean_ms, 3.0);
  EXPECT_DOUBLE_EQ(r.median_ms, 3.0);
  EXPECT_DOUBLE_EQ(r.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(r.max_ms, 5.0);
  ASSERT_EQ(r.quantile_ms.size(), 5u);
  EXPECT_DOUBLE_EQ(r.quantile_ms[0], 1.0);
  EXPECT_DOUBLE_EQ(r.quantile_ms[1], 1.4);  // 0.1 * 4 = 0.4 of the way from 1 to 2
  EXPECT_DOUBLE_EQ(r.quantile_ms[2], 2.0);
  EXPECT_DOUBLE_EQ(r.quantile_ms[3], 3.0);
  EXPECT_DOUBLE_EQ(r.quantile_ms[4], 5.0);
}

TEST(DoBench, MedianOfAnEvenCountIsTheMiddlePairsMean) {
  const BenchResult r = summarize_samples({4, 1, 3, 2}, {});
  EXPECT_DOUBLE_EQ(r.median_ms, 2.5);
}

TEST(DoBench, ReturnModesSelectTheirFigure) {
  const BenchResult r = summarize_samples({10, 1, 4}, {});
  EXPECT_DOUBLE_EQ(r.value_ms(ReturnMode::mean), 5.0);
  EXPECT_DOUBLE_EQ(r.value_ms(ReturnMode::median), 4.0);
  EXPECT_DOUBLE_EQ(r.value_ms(ReturnMode::min), 1.0);
  EXPECT_DOUBLE_EQ(r.value_ms(ReturnMode::max), 10.0);
  EXPECT_DOUBLE_EQ(r.value_ms(ReturnMode::all), 4.0);
  EXPECT_EQ(BenchOptions{}.return_mode, ReturnMode::median);
  for (ReturnMode mode : {ReturnMode::mean, ReturnMode::median, ReturnMode::min, ReturnMode::max,
                          ReturnMode::all}) {
    EXPECT_EQ(parse_return_mode(return_mode_name(mode)), mode);
  }
  EXPECT_THROW(parse_return_mode("average"), Error);
}

TEST(DoBench, BadOptionsAreRefusedBeforeAnythingRuns) {
  for (BenchOptions options : {BenchOptions{0, 0, {}, ReturnMode::median},
                               BenchOptions{-1, 10, {}, ReturnMode::median},
                               BenchOptions{1, 10, {1.5}, ReturnMode::median},
                               BenchOptions{std::numeric_limits<int>::max(), 1, {}, ReturnMode::median}}) {
    FakeClock clock;
    EXPECT_THROW(run(clock, options), Error);
    EXPECT_EQ(clock.trace, "");
  }
}

// fastest_of: candidates advance the fake clock by scripted durations (by call, the last
// repeating) and mark the trace with their letter.
struct ScriptedCandidates {
  FakeClock clock;
  std::vector<std::vector<double>> durations_ms;  // by candidate, by call
  std::vector<int> calls;
  std::vector<std::function<void()>> fns;
  explicit ScriptedCandidates(std::vector<std::vector<double>> durations)
      : durations_ms(std::move(durations)), calls(durations_ms.size(), 0) {
    for (std::size_t i = 0; i < durations_ms.size(); ++i)
      fns.push_back([this, i] {
        const auto& d = durations_ms[i];
        clock.now_ms += d[std::min(static_cast<std::size_t>(calls[i]++), d.size() - 1)];
        clock.trace += static_cast<char>('a' + i);
      });
  }
  FastestChoice choose(int min_rounds, double keep_first_within = 0) {
    FakeDevice device(clock);
    return fastest_of(device, fns, min_rounds, keep_first_within);
  }
};

TEST(FastestOf, InterleavedRoundsEachAfterAFlush) {
  ScriptedCandidates c({{2.0}, {1.0}});
  const FastestChoice choice = c.choose(3);
  EXPECT_EQ(c.clock.trace, "abF[a]F[b]F[a]F[b]F[a]F[b]");  // untimed first runs, then rounds
  EXPECT_EQ(choice.rounds, 3);
  EXPECT_EQ(choice.index, 1u);
  EXPECT_EQ(choice.median_ms, (std::vector<double>{2.0, 1.0}));
}

TEST(FastestOf, TheLowestMedianWinsNotTheLowestSampleOrMean) {
  // a: one lucky sample and one awful one; b: steady.
  ScriptedCandidates c({{1.0, 0.2, 1.0, 1.0, 9.0, 1.0}, {0.9}});  // a's first call is untimed
  const FastestChoice choice = c.choose(5);
  EXPECT_EQ(choice.index, 1u);
  EXPECT_DOUBLE_EQ(choice.median_ms[0], 1.0);
}

TEST(FastestOf, TheFirstStaysUnlessAnotherBeatsItByTheMargin) {
  // b is 1.5 % faster than a, c 3 % faster: within a 2 % margin a stays; beyond it c wins.
  ScriptedCandidates close({{1.0}, {0.985}});
  EXPECT_EQ(close.choose(5, 0.02).index, 0u);
  ScriptedCandidates clear({{1.0}, {0.985}, {0.97}});
  EXPECT_EQ(clear.choose(5, 0.02).index, 2u);
  ScriptedCandidates no_margin({{1.0}, {0.985}});
  EXPECT_EQ(no_margin.choose(5).index, 1u);  // the default: the lowest median, however close
  ScriptedCandidates bad({{1.0}, {0.5}});
  EXPECT_THROW(bad.choose(5, 1.0), Error);
  EXPECT_THROW(bad.choose(5, -0.1), Error);
}

TEST(FastestOf, ShortCandidatesGetMoreRoundsUpToABound) {
  ScriptedCandidates slow({{1.0}, {2.0}});
  EXPECT_EQ(slow.choose(5).rounds, 5);  // 0.5 ms of budget is less than one sample
  ScriptedCandidates mid({{0.0625}, {0.07}});
  EXPECT_EQ(mid.choose(5).rounds, 8);  // 0.5 ms / 0.0625 ms
  ScriptedCandidates tiny({{0.001}, {0.002}});
  EXPECT_EQ(tiny.choose(5).rounds, kMaxChoiceRoundsPerMin * 5);
}

TEST(FastestOf, NoCandidatesOrNoRoundsAreRefused) {
  ScriptedCandidates none(std::vector<std::vector<double>>{});
  EXPECT_THROW(none.choose(5), Error);
  ScriptedCandidates one(std::vector<std::vector<double>>{{1.0}});
  EXPECT_THROW(one.choose(0), Error);
  EXPECT_TRUE(one.clock.trace.empty());
}

TEST(CrossRankSummary, HeadlineIsTheSlowestRanksMedianOnEveryRank) {
  const std::vector<std::vector<double>> samples = {{1, 2, 3}, {6, 4, 5}, {3, 9, 2}};
  std::vector<CrossRankSummary> summaries(samples.size());
  const auto errors = testing::run_ranks(3, [&](Team& team) {
    summaries[team.rank()] = summarize_across_ranks(team, summarize_samples(samples[team.rank()], {}));
  });
  for (const std::string& error : errors) EXPECT_EQ(error, "");
  for (const CrossRankSummary& s : summaries) {
    EXPECT_DOUBLE_EQ(s.headline_ms, 5.0);  // medians 2, 5, 3
    EXPECT_EQ(s.slowest_rank, 1);
    EXPECT_DOUBLE_EQ(s.skew_ms, 3.0);
    EXPECT_DOUBLE_EQ(s.skew_ratio, 1.5);
    ASSERT_EQ(s.ranks.size(), 3u);
    EXPECT_DOUBLE_EQ(s.ranks[2].median_ms, 3.0);
    EXPECT_DOUBLE_EQ(s.ranks[2].max_ms, 9.0);
    EXPECT_DOUBLE_EQ(s.ranks[0].mean_ms, 2.0);
    EXPECT_EQ(s.samples_ms, samples);
  }
}

TEST(CrossRankSummary, DifferentSampleCountsAreAnErrorOnEveryRank) {
  const auto errors = testing::run_ranks(2, [&](Team& team) {
    const std::vector<double> mine(team.rank() == 0 ? 3 : 4, 1.0);
    summarize_across_ranks(team, summarize_samples(mine, {}));
  });
  for (const std::string& error : errors) {
    EXPECT_NE(error.find("same n_repeat"), std::string::npos) << error;
  }
}

TEST(CrossRankSummary, FromSamplesAtHandTheSlowestMedianLeads) {
  // Rank 1's median (3) is the slowest, rank 0's (1.5) the fastest.
  const CrossRankSummary s = summarize_rank_samples({{1, 2, 1, 2}, {3, 3, 9, 1}, {2, 2}});
  EXPECT_DOUBLE_EQ(s.headline_ms, 3.0);
  EXPECT_EQ(s.slowest_rank, 1);
  EXPECT_DOUBLE_EQ(s.skew_ms, 1.5);
  EXPECT_DOUBLE_EQ(s.skew_ratio, 1.0);
  ASSERT_EQ(s.ranks.size(), 3u);
  EXPECT_DOUBLE_EQ(s.ranks[1].max_ms, 9.0);
  EXPECT_EQ(s.samples_ms[2].size(), 2u);
}

}  // namespace
}  // namespace symm
