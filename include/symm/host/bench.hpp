#pragma once
// do_bench with Iris's semantics (docs/benchmarking.md).
//
// One untimed call of fn, then n_warmup untimed and n_repeat timed iterations, each:
//   barrier_fn -> preamble_fn -> L2 flush (256 MiB write) -> barrier_fn -> timed fn
// The preamble and the flush are never timed. Every rank runs the same number of
// iterations (the counts come from the options, never from elapsed time). Every sample
// is kept; the summary gives mean, median (the default), min, max and quantiles.
#include <functional>
#include <string>
#include <vector>

namespace symm {

enum class ReturnMode { mean, median, min, max, all };

struct BenchOptions {
  int n_warmup = 25;
  int n_repeat = 100;
  std::vector<double> quantiles;  // e.g. {0.2, 0.5, 0.8}; empty: none
  ReturnMode return_mode = ReturnMode::median;
};

struct BenchResult {
  std::vector<double> samples_ms;  // every timed iteration, in order
  double mean_ms = 0, median_ms = 0, min_ms = 0, max_ms = 0;
  std::vector<double> quantile_ms;  // one per BenchOptions::quantiles
  double value_ms(ReturnMode mode) const;  // the figure selected by mode (all -> median)
};

// What do_bench needs from the device: a timer around fn and an L2 flush. The GPU
// implementation uses CUDA events on a stream; tests substitute a fake.
class BenchDevice {
 public:
  virtual ~BenchDevice() = default;
  virtual void flush_l2() = 0;                                   // untimed
  virtual double time_ms(const std::function<void()>& fn) = 0;  // timed region
};

BenchResult do_bench(BenchDevice& device, const std::function<void()>& fn,
                     const std::function<void()>& barrier_fn,
                     const std::function<void()>& preamble_fn, const BenchOptions& options);

}  // namespace symm
