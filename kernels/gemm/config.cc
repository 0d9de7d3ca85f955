// Names of kernel configurations, as the CLI and SYMM_GEMM_CONFIG spell them.
#include <fmt/format.h>

#include <cstdio>

#include "symm/gemm/config.hpp"

namespace symm::gemm {

std::string to_string(const KernelConfig& c) {
  const std::string cluster = c.cluster_m > 1 ? fmt::format("c{}", c.cluster_m) : "";
  return fmt::format("{}x{}x{}s{}{}", c.blk_m, c.blk_n, c.blk_k, c.stages, cluster);
}

bool parse_config(const std::string& text, KernelConfig& out) {
  KernelConfig c;
  int used = 0;
  const auto whole = [&](int fields, int expected) { return fields == expected && used == int(text.size()); };
  const char* s = text.c_str();
  if (!whole(std::sscanf(s, "%dx%dx%ds%d%n", &c.blk_m, &c.blk_n, &c.blk_k, &c.stages, &used), 4) &&
      !whole(std::sscanf(s, "%dx%dx%ds%dc%d%n", &c.blk_m, &c.blk_n, &c.blk_k, &c.stages, &c.cluster_m,
                         &used), 5))
    return false;
  out = c;
  return true;
}

}  // namespace symm::gemm
