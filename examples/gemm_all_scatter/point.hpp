#pragma once
// One problem measured on every rank (a collective): the operands and the reference are
// made once, then every contender (the requested variants and gemm_alone for each tile
// configuration, then the baselines) is validated in the first round and timed in
// interleaved rounds. A program run is one point; a sweep (sweep.hpp) runs many in one
// launch of the ranks.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "command_line.hpp"
#include "report.hpp"
#include "symm/gemm/config.hpp"
#include "symm/host/bench.hpp"
#include "symm/host/runtime.hpp"

namespace symm::examples::gemm_all_scatter {

// Contenders sharing a tile configuration (none: the plan's choice): the variants, then
// gemm_alone with that configuration.
struct ContenderGroup {
  std::optional<gemm::KernelConfig> config;
  std::vector<RequestedVariant> variants;
};

struct Point {
  const CommandLine& cl;  // shape, options, what to measure (config and variants: the groups')
  std::vector<ContenderGroup> groups;  // Row::group is the index here
  BenchOptions counts;  // every contender's iterations, split over the rounds
  std::uint64_t seed = 0;
};

// Heap allocations of the point (operands, contenders' flags) are released on return.
std::vector<Row> measure_point(Runtime& rt, const Point& point, cudaStream_t stream);

}  // namespace symm::examples::gemm_all_scatter
