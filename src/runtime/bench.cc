// do_bench (Iris's semantics) and the statistics of its samples.
#include "symm/host/bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <utility>

#include "symm/common/error.hpp"
#include "symm/host/gather.hpp"

namespace symm {
namespace {

constexpr std::array<std::pair<ReturnMode, std::string_view>, 5> kReturnModes = {{
    {ReturnMode::mean, "mean"},
    {ReturnMode::median, "median"},
    {ReturnMode::min, "min"},
    {ReturnMode::max, "max"},
    {ReturnMode::all, "all"},
}};

// Linear interpolation between the two closest ranks of sorted data (Iris, numpy default).
double quantile_of_sorted(std::span<const double> sorted, double q) {
  const double point = q * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(point));
  const auto upper = static_cast<std::size_t>(std::ceil(point));
  const double t = point - static_cast<double>(lower);
  return (1.0 - t) * sorted[lower] + t * sorted[upper];
}

void validate(const BenchOptions& options) {
  if (options.n_warmup < 0 || options.n_repeat < 1) {
    throw Error(fmt::format("do_bench: need n_warmup >= 0 and n_repeat >= 1 (got {} and {})",
                            options.n_warmup, options.n_repeat));
  }
  if (options.n_warmup > std::numeric_limits<int>::max() - options.n_repeat)
    throw Error(fmt::format("do_bench: n_warmup + n_repeat ({} + {}) is more iterations than an int counts; give "
                            "fewer",
                            options.n_warmup, options.n_repeat));
  for (double q : options.quantiles) {
    if (!(q >= 0.0 && q <= 1.0)) {
      throw Error(fmt::format("do_bench: quantile {} is outside [0, 1]", q));
    }
  }
}

}  // namespace

std::string_view return_mode_name(ReturnMode mode) {
  for (const auto& [value, name] : kReturnModes) {
    if (value == mode) return name;
  }
  return "?";
}

ReturnMode parse_return_mode(std::string_view name) {
  for (const auto& [value, known] : kReturnModes) {
    if (known == name) return value;
  }
  throw Error(fmt::format("unknown return mode '{}'; expected mean, median, min, max or all",
                          name));
}

double BenchResult::value_ms(ReturnMode mode) const {
  switch (mode) {
    case ReturnMode::mean: return mean_ms;
    case ReturnMode::min: return min_ms;
    case ReturnMode::max: return max_ms;
    case ReturnMode::median:
    case ReturnMode::all: return median_ms;
  }
  return median_ms;
}

BenchResult summarize_samples(std::vector<double> samples_ms, std::span<const double> quantiles) {
  if (samples_ms.empty()) throw Error("summarize_samples: no samples");
  std::vector<double> sorted = samples_ms;
  std::sort(sorted.begin(), sorted.end());
  BenchResult result;
  result.mean_ms = std::accumulate(sorted.begin(), sorted.end(), 0.0) /
                   static_cast<double>(sorted.size());
  result.median_ms = quantile_of_sorted(sorted, 0.5);
  result.min_ms = sorted.front();
  result.max_ms = sorted.back();
  for (double q : quantiles) result.quantile_ms.push_back(quantile_of_sorted(sorted, q));
  result.samples_ms = std::move(samples_ms);
  return result;
}

BenchResult do_bench(BenchDevice& device, const std::function<void()>& fn,
                     const std::function<void()>& barrier_fn,
                     const std::function<void()>& preamble_fn, const BenchOptions& options) {
  validate(options);
  // Untimed first call: pays for lazy loading and first-touch costs.
  barrier_fn();
  preamble_fn();
  fn();
  barrier_fn();

  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(options.n_repeat));
  const int iterations = options.n_warmup + options.n_repeat;
  for (int i = 0; i < iterations; ++i) {
    barrier_fn();  // every rank is done with the previous iteration
    preamble_fn();
    device.flush_l2();
    barrier_fn();  // every rank's preamble and flush are done before anyone starts
    if (i < options.n_warmup) {
      fn();
    } else {
      samples.push_back(device.time_ms(fn));
    }
  }
  barrier_fn();
  return summarize_samples(std::move(samples), options.quantiles);
}

FastestChoice fastest_of(BenchDevice& device, std::span<const std::function<void()>> candidates, int min_rounds,
                         double keep_first_within) {
  if (candidates.empty() || min_rounds < 1)
    throw Error(fmt::format("fastest_of: need candidates and min_rounds >= 1 (got {} and {})", candidates.size(),
                            min_rounds));
  if (!(keep_first_within >= 0 && keep_first_within < 1))
    throw Error(fmt::format("fastest_of: keep_first_within must be in [0, 1) (got {})", keep_first_within));
  for (const auto& candidate : candidates) candidate();  // lazy loading, first-touch costs
  std::vector<std::vector<double>> samples(candidates.size());
  const auto round = [&] {
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      device.flush_l2();
      samples[i].push_back(device.time_ms(candidates[i]));
    }
  };
  round();
  double fastest = samples.front().front();
  for (const auto& s : samples) fastest = std::min(fastest, s.front());
  FastestChoice choice;
  choice.rounds = std::clamp(static_cast<int>(std::min(kChoiceBudgetMs / std::max(fastest, 1e-6), 1e6)),
                             min_rounds, kMaxChoiceRoundsPerMin * min_rounds);
  for (int r = 1; r < choice.rounds; ++r) round();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    choice.median_ms.push_back(summarize_samples(std::move(samples[i]), {}).median_ms);
    if (choice.median_ms[i] < choice.median_ms[choice.index]) choice.index = i;
  }
  if (choice.median_ms[choice.index] >= choice.median_ms.front() * (1 - keep_first_within)) choice.index = 0;
  return choice;
}

CrossRankSummary summarize_across_ranks(Team& team, const BenchResult& mine) {
  const int world = team.world();
  // Equal sizes are a precondition of all_gather; check them first for a clear message.
  const std::uint64_t my_count = mine.samples_ms.size();
  const std::vector<std::uint64_t> counts = gather(team, my_count);
  if (const int r = first_rank_unlike(counts, my_count); r >= 0)
    throw Error(fmt::format(
        "summarize_across_ranks: rank {} has {} samples and rank {} has {}; every rank must "
        "run do_bench with the same n_repeat",
        team.rank(), my_count, r, counts[r]));
  if (my_count == 0) throw Error("summarize_across_ranks: no samples");
  const auto gathered = team.all_gather(std::as_bytes(std::span(mine.samples_ms)));
  std::vector<std::vector<double>> by_rank(world, std::vector<double>(my_count));
  for (int r = 0; r < world; ++r)
    std::memcpy(by_rank[r].data(), gathered.data() + r * my_count * sizeof(double),
                my_count * sizeof(double));
  return summarize_rank_samples(std::move(by_rank));
}

CrossRankSummary summarize_rank_samples(std::vector<std::vector<double>> samples_by_rank) {
  CrossRankSummary summary;
  double fastest_median = 0;
  for (std::size_t r = 0; r < samples_by_rank.size(); ++r) {
    const BenchResult stats = summarize_samples(samples_by_rank[r], {});
    summary.ranks.push_back({int(r), stats.mean_ms, stats.median_ms, stats.min_ms, stats.max_ms});
    if (r == 0 || stats.median_ms > summary.headline_ms) {
      summary.headline_ms = stats.median_ms;
      summary.slowest_rank = int(r);
    }
    if (r == 0 || stats.median_ms < fastest_median) fastest_median = stats.median_ms;
  }
  summary.samples_ms = std::move(samples_by_rank);
  summary.skew_ms = summary.headline_ms - fastest_median;
  summary.skew_ratio = fastest_median > 0 ? summary.skew_ms / fastest_median : 0.0;
  return summary;
}

}  // namespace symm
