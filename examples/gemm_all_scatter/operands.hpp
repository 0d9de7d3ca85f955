#pragma once
// The operands of one rank, on its symmetric heap: A (M x K, the same bits on every
// rank), its shard of B, and C (M x N), all from one seed so that every rank can
// regenerate any rank's shard for the reference.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "symm/host/runtime.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::examples::gemm_all_scatter {

struct Operands {
  const void* a = nullptr;        // M x K, randn with seed a_seed(seed)
  const void* b_shard = nullptr;  // this rank's shard, randn with seed shard_seed(seed, rank)
  void* c = nullptr;              // M x N, poisoned (all-ones bytes: NaN)
};

// Seeds of the Philox streams: A takes the seed itself, shard r takes seed + 1 + r.
inline std::uint64_t a_seed(std::uint64_t seed) { return seed; }
inline std::uint64_t shard_seed(std::uint64_t seed, int shard) { return seed + 1 + shard; }

// Collective (heap allocations), stream-ordered fills.
Operands make_operands(Runtime& rt, const ops::AllScatterShape& shape, std::uint64_t seed,
                       cudaStream_t stream);

// Writes the bits of rank `shard`'s B shard (K * N / world elements) to `dst`.
void fill_b_shard(void* dst, const ops::AllScatterShape& shape, int world, int shard,
                  std::uint64_t seed, cudaStream_t stream);

// Elements of one B shard, and the bytes of C.
std::int64_t shard_elements(const ops::AllScatterShape& shape, int world);
std::size_t c_bytes(const ops::AllScatterShape& shape);

}  // namespace symm::examples::gemm_all_scatter
