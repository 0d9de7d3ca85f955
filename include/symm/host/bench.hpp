#pragma once
// do_bench with Iris's semantics (docs/benchmarking.md).
//
// barrier_fn -> preamble_fn -> fn -> barrier_fn once, untimed (first-call costs), then
// n_warmup untimed and n_repeat timed iterations, each:
//   barrier_fn -> preamble_fn -> L2 flush (256 MiB write) -> barrier_fn -> fn
// and a closing barrier_fn. The preamble and the flush are never timed. Every rank runs
// the same number of iterations (the counts come from the options, never from elapsed
// time). Every sample is kept; the summary gives mean, median (the default), min, max
// and quantiles (linear interpolation between the closest ranks, as Iris does).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "symm/host/team.hpp"

namespace symm {

enum class ReturnMode { mean, median, min, max, all };

std::string_view return_mode_name(ReturnMode mode);    // "mean", ...
ReturnMode parse_return_mode(std::string_view name);  // throws symm::Error

struct BenchOptions {
  int n_warmup = 25;
  int n_repeat = 100;
  std::vector<double> quantiles;  // each in [0, 1], e.g. {0.2, 0.5, 0.8}; empty: none
  ReturnMode return_mode = ReturnMode::median;
};

struct BenchResult {
  std::vector<double> samples_ms;  // every timed iteration, in order
  double mean_ms = 0, median_ms = 0, min_ms = 0, max_ms = 0;
  std::vector<double> quantile_ms;  // one per BenchOptions::quantiles
  double value_ms(ReturnMode mode) const;  // the figure selected by mode (all -> median)
};

// Statistics of `samples_ms` (not empty; quantiles in [0, 1]).
BenchResult summarize_samples(std::vector<double> samples_ms, std::span<const double> quantiles);

// What do_bench needs from the device: a timer around fn and an L2 flush. The GPU
// implementation is CudaBenchDevice; tests substitute a fake.
class BenchDevice {
 public:
  virtual ~BenchDevice() = default;
  virtual void flush_l2() = 0;                                   // untimed
  virtual double time_ms(const std::function<void()>& fn) = 0;  // timed region
};

BenchResult do_bench(BenchDevice& device, const std::function<void()>& fn,
                     const std::function<void()>& barrier_fn,
                     const std::function<void()>& preamble_fn, const BenchOptions& options);

// Which of `candidates` runs fastest, timed as do_bench times them: an untimed first run
// each, then rounds of one run per candidate, interleaved (clock drift then hits every
// candidate alike), each after an L2 flush. At least min_rounds (>= 1); short candidates
// get more, as many as fit kChoiceBudgetMs of the fastest first sample, up to
// kMaxChoiceRoundsPerMin x min_rounds, since their samples differ by more than they do.
// The lowest median wins; with keep_first_within > 0 the first candidate (the caller's
// default) stays chosen unless the winner's median is below the first's by more than that
// fraction: a choice that is kept and reused is not switched on noise.
inline constexpr double kChoiceBudgetMs = 0.5;
inline constexpr int kMaxChoiceRoundsPerMin = 8;
struct FastestChoice {
  std::size_t index = 0;          // of the fastest candidate
  int rounds = 0;                 // timed runs per candidate
  std::vector<double> median_ms;  // by candidate
};
FastestChoice fastest_of(BenchDevice& device, std::span<const std::function<void()>> candidates, int min_rounds,
                         double keep_first_within = 0);

inline constexpr std::size_t kL2FlushBytes = std::size_t{256} << 20;

// Times fn with CUDA events recorded on `stream` (fn must enqueue its work there) and
// flushes the L2 by writing a buffer of kL2FlushBytes, allocated at the first flush, on
// that stream.
class CudaBenchDevice final : public BenchDevice {
 public:
  explicit CudaBenchDevice(cudaStream_t stream);
  ~CudaBenchDevice() override;
  CudaBenchDevice(const CudaBenchDevice&) = delete;
  CudaBenchDevice& operator=(const CudaBenchDevice&) = delete;

  void flush_l2() override;
  double time_ms(const std::function<void()>& fn) override;

 private:
  void release() noexcept;

  cudaStream_t stream_;
  void* flush_buffer_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// One rank's figures within a cross-rank summary.
struct RankFigures {
  int rank = 0;
  double mean_ms = 0, median_ms = 0, min_ms = 0, max_ms = 0;
};

// Every rank's samples, gathered: the headline figure is the slowest rank's median
// (docs/benchmarking.md); skew says how far apart the ranks' medians are.
struct CrossRankSummary {
  double headline_ms = 0;  // the largest median of any rank
  int slowest_rank = 0;
  double skew_ms = 0;     // slowest median - fastest median
  double skew_ratio = 0;  // skew_ms / fastest median
  std::vector<RankFigures> ranks;               // by rank
  std::vector<std::vector<double>> samples_ms;  // by rank, every sample
};

// Collective: every rank passes its own result (with the same number of samples).
CrossRankSummary summarize_across_ranks(Team& team, const BenchResult& mine);
// The same from every rank's samples already at hand (by rank; none empty).
CrossRankSummary summarize_rank_samples(std::vector<std::vector<double>> samples_by_rank);

}  // namespace symm
