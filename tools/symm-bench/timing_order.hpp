#pragma once
// How `symm-bench gemm` orders its contenders and pairs their repeats: pure rules, tested
// in the cpu tier. The H200's clock drifts under load, and a contender timed first in a
// repeat ran faster (docs/gemm.md, Benchmark), so no contender may always go first.
#include <cstddef>
#include <span>
#include <vector>

namespace symm::bench {

// The contenders (indices 0 .. count - 1) in the order repeat `repeat` of the problem at
// place `problem` in the run times them: reversed on every other repeat, and starting
// reversed on every other problem, so each end goes first equally often over a preset.
std::vector<std::size_t> timing_order(int repeat, int problem, std::size_t count);

// symm-bench's median of its repeats: do_bench's median (summarize_samples: the mean of
// the two middle values for an even count), so that one "median" holds throughout (not
// empty).
double repeat_median(std::vector<double> values);

// repeat_median of numer[r] / denom[r] over the repeats: each repeat's pair was timed back
// to back. Throws symm::Error on empty or unequal spans.
double paired_ratio(std::span<const double> numer, std::span<const double> denom);

}  // namespace symm::bench
