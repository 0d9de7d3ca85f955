#include "tuning_operands.hpp"

#include "symm/host/heap.hpp"
#include "symm/host/tensor.hpp"

namespace symm::baselines {
namespace {

constexpr std::uint64_t kSeedA = 1, kSeedB = 2;

void fill_uniform(void* data, std::size_t count, gemm::DType dtype, std::uint64_t seed,
                  cudaStream_t stream) {
  if (dtype == gemm::DType::bf16)
    detail::uniform_on_device(static_cast<bf16*>(data), count, seed, -1.0, 1.0, stream);
  else
    detail::uniform_on_device(static_cast<fp16*>(data), count, seed, -1.0, 1.0, stream);
}

}  // namespace

TuningOperands::TuningOperands(Heap& heap, const ShardGeometry& g, cudaStream_t stream)
    : a_(g.m * g.k * g.element_bytes(), "A for the baselines' timings"),
      b_shard_(g.k * g.shard_cols * g.element_bytes(), "B shard for the baselines' timings"),
      c_(heap.allocate(g.m * g.c_pitch())) {
  fill_uniform(a_.get(), g.m * g.k, g.dtype, kSeedA, stream);
  fill_uniform(b_shard_.get(), g.k * g.shard_cols, g.dtype, kSeedB, stream);
}

}  // namespace symm::baselines
