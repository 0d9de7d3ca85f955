#pragma once
// What every rank sets up before it measures, for one program run or a whole sweep: the
// runtime's heap size, a stream, the GPUs in use, the iteration counts and the seed.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "command_line.hpp"
#include "symm/host/bench.hpp"
#include "symm/host/cuda_resources.hpp"
#include "symm/host/runtime.hpp"

namespace symm::examples::gemm_all_scatter {

// SYMM_* settings, with the heap of --heap_size, else SYMM_HEAP_SIZE, else `needed_bytes`.
RuntimeOptions runtime_options(const CommandLine& cl, std::uint64_t needed_bytes);

// The iterations of a run: the command line's, or 1 warm-up and 3 timed iterations when
// ranks share a GPU (they take turns: a correctness run) and none were given.
BenchOptions run_counts(const CommandLine& cl, bool ranks_share_gpus);

// Number of distinct GPUs among the ranks (from Runtime::rank_gpus(): PCI bus ids, which,
// unlike device ordinals, do not depend on each rank's CUDA_VISIBLE_DEVICES).
int distinct_gpus(const Runtime& rt);

// --seed, or a fresh one chosen by rank 0 when it is 0 (collective: every rank needs the
// same A).
std::uint64_t agreed_seed(Team& team, std::uint64_t given);

}  // namespace symm::examples::gemm_all_scatter
