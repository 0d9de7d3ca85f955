// The cross-rank barrier inside a kernel: in round k every rank (every block of it,
// for the grid barrier) writes k into its slot on every rank, meets the others at the
// barrier, then reads every slot: each must hold k. Slots alternate between two
// banks by round parity, so a rank already in round k+1 cannot disturb round k's
// check. The kernel runs twice on the same barrier state: epochs carry over.
#include <cstdint>
#include <string>

#include "harness.hpp"
#include "rank_bodies.hpp"
#include "symm/device/barrier.cuh"
#include "symm/device/rma.cuh"
#include "symm/host/cuda_check.hpp"

namespace symm::test {
namespace {

using device::Context;
using device::flag_t;

// slots[bank][rank][block]
__device__ std::uint64_t* slot(std::uint64_t* slots, int bank, int rank, int block, int world) {
  return slots + (static_cast<std::size_t>(bank) * world + rank) * gridDim.x + block;
}

template <bool Grid>
__global__ void rounds_kernel(Context ctx, flag_t* state, std::uint64_t* slots, int first,
                              int rounds, unsigned long long* errors) {
  const device::RankBarrier barrier(state);
  unsigned long long my_errors = 0;
  for (int k = first; k < first + rounds; ++k) {
    const int bank = k % 2;
    if (threadIdx.x < ctx.world) {
      device::store(ctx, slot(slots, bank, ctx.rank, blockIdx.x, ctx.world), threadIdx.x,
                    static_cast<std::uint64_t>(k));
    }
    if constexpr (Grid) barrier.sync_grid(ctx);
    else barrier.sync_block(ctx);
    const int blocks = Grid ? gridDim.x : 1;
    for (int i = threadIdx.x; i < ctx.world * blocks; i += blockDim.x) {
      if (*slot(slots, bank, i / blocks, i % blocks, ctx.world) != static_cast<std::uint64_t>(k)) {
        ++my_errors;
      }
    }
  }
  if (my_errors) atomicAdd(errors, my_errors);
}

}  // namespace

int barrier_rank_body(Runtime& rt) {
  Failures failures("barrier");
  cudaStream_t stream;
  SYMM_CUDA_CHECK(cudaStreamCreate(&stream));
  constexpr int kBlocks = 8;  // few enough to be resident at once on any GPU
  const int rounds = scaled(rt, 2000, 50);
  auto* state = static_cast<flag_t*>(rt.heap().allocate(device::RankBarrier::words(rt.world()) * sizeof(flag_t)));
  const std::size_t slot_bytes = 2ull * rt.world() * kBlocks * sizeof(std::uint64_t);
  auto* slots = static_cast<std::uint64_t*>(rt.heap().allocate(slot_bytes));
  unsigned long long* errors = nullptr;
  SYMM_CUDA_CHECK(cudaMalloc(&errors, sizeof(*errors)));

  for (const bool grid : {false, true}) {
    SYMM_CUDA_CHECK(cudaMemsetAsync(state, 0, device::RankBarrier::words(rt.world()) * sizeof(flag_t), stream));
    SYMM_CUDA_CHECK(cudaMemsetAsync(slots, 0xFF, slot_bytes, stream));
    SYMM_CUDA_CHECK(cudaMemsetAsync(errors, 0, sizeof(*errors), stream));
    rt.barrier(stream);
    for (int launch = 0; launch < 2; ++launch) {
      const int first = 1 + launch * rounds;
      if (grid) {
        rounds_kernel<true><<<kBlocks, 128, 0, stream>>>(rt.context(), state, slots, first, rounds, errors);
      } else {
        rounds_kernel<false><<<1, 128, 0, stream>>>(rt.context(), state, slots, first, rounds, errors);
      }
      SYMM_CUDA_CHECK(cudaGetLastError());
    }
    unsigned long long seen = 0;
    SYMM_CUDA_CHECK(cudaMemcpyAsync(&seen, errors, sizeof(seen), cudaMemcpyDeviceToHost, stream));
    rt.barrier(stream);
    failures.check(seen == 0, std::string(grid ? "grid" : "block") + " barrier: " +
                                  std::to_string(seen) + " slots did not hold their round's value");
  }
  SYMM_CUDA_CHECK(cudaFree(errors));
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
  return failures.exit_code();
}

}  // namespace symm::test
