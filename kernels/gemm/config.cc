// Names of kernel configurations, as the CLI and SYMM_GEMM_CONFIG spell them.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "symm/gemm/config.hpp"

namespace symm::gemm {

namespace {

constexpr const char* kPingpongSuffix = "-pingpong";
constexpr const char* kSwappedSuffix = "-swapped";

const char* schedule_suffix(Schedule s) {
  return s == Schedule::pingpong ? kPingpongSuffix : s == Schedule::swapped ? kSwappedSuffix : "";
}

// Clusters: "c2" for 2 x 1 blocks (the first built, named before there were others; "c4" for 4 x 1),
// "cMxN" once the cluster has more than one column.
std::string cluster_suffix(const KernelConfig& c) {
  if (c.cluster_n > 1) return fmt::format("c{}x{}", c.cluster_m, c.cluster_n);
  return c.cluster_m > 1 ? fmt::format("c{}", c.cluster_m) : "";
}

// Digits only (sscanf's %d would also take signs and spaces): the value, or -1.
int parse_count(const std::string& text) {
  if (text.empty() || text.size() > 3 ||
      !std::all_of(text.begin(), text.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
    return -1;
  return std::stoi(text);
}

}  // namespace

std::string to_string(const KernelConfig& c) {
  return fmt::format("{}x{}x{}s{}{}{}", c.blk_m, c.blk_n, c.blk_k, c.stages, cluster_suffix(c),
                     schedule_suffix(c.schedule));
}

std::string config_names(std::span<const KernelConfig> configs) {
  std::string names;
  for (const KernelConfig& c : configs) names += (names.empty() ? "" : ", ") + to_string(c);
  return names;
}

// "BMxBNxBKsSTAGES", then the cluster suffix (above), then "-pingpong" or "-swapped".
bool parse_config(const std::string& text, KernelConfig& out) {
  KernelConfig c;
  std::string shape = text;
  for (Schedule s : {Schedule::pingpong, Schedule::swapped}) {
    const std::string suffix = schedule_suffix(s);
    if (shape.size() > suffix.size() && shape.ends_with(suffix)) {
      c.schedule = s;
      shape.resize(shape.size() - suffix.size());
      break;
    }
  }
  int used = 0;
  if (std::sscanf(shape.c_str(), "%dx%dx%ds%d%n", &c.blk_m, &c.blk_n, &c.blk_k, &c.stages, &used) != 4)
    return false;
  if (used < int(shape.size())) {
    const std::string cluster = shape.substr(std::size_t(used));
    if (cluster[0] != 'c') return false;
    const std::size_t x = cluster.find('x');
    c.cluster_m = parse_count(cluster.substr(1, x == std::string::npos ? std::string::npos : x - 1));
    c.cluster_n = x == std::string::npos ? 1 : parse_count(cluster.substr(x + 1));
    if (c.cluster_m < 1 || c.cluster_n < 1 || cluster_suffix(c) != cluster) return false;  // one spelling
  }
  out = c;
  return true;
}

}  // namespace symm::gemm
