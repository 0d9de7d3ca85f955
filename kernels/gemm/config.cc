// Names of kernel configurations, as the CLI and SYMM_GEMM_CONFIG spell them.
#include <fmt/format.h>

#include <cstdio>

#include "symm/gemm/config.hpp"

namespace symm::gemm {

std::string to_string(const KernelConfig& c) {
  return fmt::format("{}x{}x{}s{}", c.blk_m, c.blk_n, c.blk_k, c.stages);
}

bool parse_config(const std::string& text, KernelConfig& out) {
  KernelConfig c;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%dx%dx%ds%d%c", &c.blk_m, &c.blk_n, &c.blk_k, &c.stages, &tail) != 4)
    return false;
  out = c;
  return true;
}

}  // namespace symm::gemm
