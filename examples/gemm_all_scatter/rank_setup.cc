// What every rank sets up before it measures (rank_setup.hpp).
#include "rank_setup.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "symm/host/cuda_check.hpp"

namespace symm::examples::gemm_all_scatter {

RuntimeOptions runtime_options(const CommandLine& cl, std::uint64_t needed_bytes) {
  RuntimeOptions options = RuntimeOptions::from_env();
  const std::uint64_t given = heap_size_given(cl);
  options.heap_size = given > 0 ? given : needed_bytes;
  return options;
}

BenchOptions run_counts(const CommandLine& cl, bool ranks_share_gpus) {
  BenchOptions counts;
  counts.n_warmup = cl.n_warmup;
  counts.n_repeat = cl.n_repeat;
  if (ranks_share_gpus && !cl.counts_given) {
    counts.n_warmup = std::min(counts.n_warmup, 1);
    counts.n_repeat = std::min(counts.n_repeat, 3);
  }
  return counts;
}

int distinct_gpus(const Runtime& rt) {
  const std::vector<std::string>& gpus = rt.rank_gpus();
  return static_cast<int>(std::set<std::string>(gpus.begin(), gpus.end()).size());
}

std::uint64_t agreed_seed(Team& team, std::uint64_t given) {
  std::uint64_t seed = given;
  if (seed == 0 && team.rank() == 0) {
    // 53 bits: the seed stays exact in any JSON reader (doubles).
    const auto now = std::chrono::system_clock::now().time_since_epoch().count();
    seed = std::max<std::uint64_t>(static_cast<std::uint64_t>(now) & ((std::uint64_t{1} << 53) - 1), 1);
  }
  team.broadcast(std::as_writable_bytes(std::span(&seed, 1)), 0);
  return seed;
}

}  // namespace symm::examples::gemm_all_scatter
