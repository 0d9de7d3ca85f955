#include "timing_order.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

#include "symm/common/error.hpp"
#include "symm/host/bench.hpp"

namespace symm::bench {

std::vector<std::size_t> timing_order(int repeat, int problem, std::size_t count) {
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if ((repeat + problem) % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

double repeat_median(std::vector<double> values) { return summarize_samples(std::move(values), {}).median_ms; }

double paired_ratio(std::span<const double> numer, std::span<const double> denom) {
  if (numer.empty() || numer.size() != denom.size())
    throw Error("symm-bench: a paired ratio needs one time of each side per repeat");
  std::vector<double> ratios(numer.size());
  std::transform(numer.begin(), numer.end(), denom.begin(), ratios.begin(), std::divides<>());
  return repeat_median(std::move(ratios));
}

}  // namespace symm::bench
