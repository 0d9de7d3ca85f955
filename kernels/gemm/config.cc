// Names of kernel configurations, as the CLI and SYMM_GEMM_CONFIG spell them.
#include <fmt/format.h>

#include <cctype>
#include <cstdio>

#include "symm/gemm/config.hpp"

namespace symm::gemm {

constexpr const char* kPingpongSuffix = "-pingpong";

std::string to_string(const KernelConfig& c) {
  return fmt::format("{}x{}x{}s{}{}{}", c.blk_m, c.blk_n, c.blk_k, c.stages,
                     c.cluster_m > 1 ? fmt::format("c{}", c.cluster_m) : "", c.pingpong() ? kPingpongSuffix : "");
}

// "BMxBNxBKsSTAGES", then "cCLUSTER" (blocks per cluster, > 1), then "-pingpong".
bool parse_config(const std::string& text, KernelConfig& out) {
  KernelConfig c;
  std::string shape = text;
  const std::string suffix = kPingpongSuffix;
  if (shape.size() > suffix.size() && shape.ends_with(suffix)) {
    c.schedule = Schedule::pingpong;
    shape.resize(shape.size() - suffix.size());
  }
  int used = 0;
  if (std::sscanf(shape.c_str(), "%dx%dx%ds%d%n", &c.blk_m, &c.blk_n, &c.blk_k, &c.stages, &used) != 4)
    return false;
  if (used < int(shape.size())) {
    int more = 0;
    const std::string cluster = shape.substr(std::size_t(used));
    if (cluster.size() < 2 || !std::isdigit(static_cast<unsigned char>(cluster[1])) ||
        std::sscanf(cluster.c_str(), "c%d%n", &c.cluster_m, &more) != 1 || more != int(cluster.size()) ||
        c.cluster_m < 2)
      return false;
  }
  out = c;
  return true;
}

}  // namespace symm::gemm
