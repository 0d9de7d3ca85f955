#pragma once
// A barrier across ranks, inside a kernel: no rank leaves until every rank arrived,
// and everything any rank wrote before arriving (to its heap or a peer's) is visible
// to every rank after leaving.
//
//   RankBarrier barrier{state};       // state: RankBarrier::words(world) flags on the heap
//   barrier.sync_block(ctx);          // one block per rank takes part
//   barrier.sync_grid(ctx);           // every block of the grid on every rank takes part
//
// The state lives on the symmetric heap, zeroed once when allocated (by the caller: heap
// memory a HeapScope handed back is not zeroed again). It counts epochs (barriers
// passed), so it is never reset between iterations or launches, and a graph replay
// advances it like a launch. Every rank must pass the same number of barriers on it.
// Waits are bounded (signal.cuh). sync_grid needs every block of the grid resident at
// once (check occupancy before launch); it works for any grid size, which may differ
// from launch to launch. One kernel uses one of sync_block and sync_grid on a state:
// sync_grid's blocks derive the epoch from the state, which a sync_block of another
// block in the same kernel may be advancing.
#include <cstddef>
#include <cstdint>

#include "symm/device/atomic.cuh"
#include "symm/device/context.cuh"
#include "symm/device/signal.cuh"

namespace symm::device {

class RankBarrier {
 public:
  // Flags of state per rank: [epoch, block arrivals, arrival of rank 0, 1, ...].
  __host__ __device__ static constexpr std::size_t words(int world) {
    return kFirstArrival + static_cast<std::size_t>(world);
  }

  __host__ __device__ explicit RankBarrier(flag_t* state) : state_(state) {}

  // Called by every thread of exactly one block on each rank.
  __device__ void sync_block(const Context& ctx) const {
    __shared__ flag_t epoch;
    __syncthreads();  // every thread's writes precede the releases below
    if (linear_thread() == 0) epoch = state_[kEpoch] + 1;  // only this block uses it
    __syncthreads();
    exchange(ctx, epoch);
    if (linear_thread() == 0) state_[kEpoch] = epoch;
    __syncthreads();
  }

  // Called by every thread of every block of the grid on each rank. The last block to
  // arrive on a rank meets the other ranks, then releases its own rank's blocks.
  __device__ void sync_grid(const Context& ctx) const {
    __shared__ flag_t epoch;
    __shared__ bool last;
    __syncthreads();
    if (linear_thread() == 0) {
      const int me = ctx.rank;
      // The epoch cannot advance before this block arrives, so this is the current one.
      epoch = atomic_load<cuda::memory_order_relaxed>(ctx, &state_[kEpoch], me) + 1;
      const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
      const flag_t arrived = atomic_add(ctx, &state_[kArrivals], me, flag_t{1});  // acq_rel
      last = arrived + 1 == blocks;
    }
    __syncthreads();
    if (last) {
      // Reset before the release below: no block arrives again until it sees the epoch.
      if (linear_thread() == 0) {
        atomic_store<cuda::memory_order_relaxed>(ctx, &state_[kArrivals], ctx.rank, flag_t{0});
      }
      exchange(ctx, epoch);
      if (linear_thread() == 0) signal_set(ctx, &state_[kEpoch], ctx.rank, epoch);
    } else if (linear_thread() == 0) {
      wait_at_least(ctx, &state_[kEpoch], epoch);
    }
    __syncthreads();
  }

 private:
  static constexpr std::size_t kEpoch = 0;          // barriers this rank passed
  static constexpr std::size_t kArrivals = 1;       // blocks of this rank in sync_grid
  static constexpr std::size_t kFirstArrival = 2;   // + r: epoch rank r last reached

  __device__ static unsigned linear_thread() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }

  // Thread p of the block tells rank p that this rank reached `epoch` (release); then
  // waits until rank p reached it too (acquire). All signals go out before any wait,
  // so no order of arrival can deadlock. The block meets again after.
  __device__ void exchange(const Context& ctx, flag_t epoch) const {
    const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned world = static_cast<unsigned>(ctx.world);
    for (unsigned peer = linear_thread(); peer < world; peer += threads) {
      signal_set(ctx, &state_[kFirstArrival + ctx.rank], static_cast<int>(peer), epoch);
    }
    for (unsigned peer = linear_thread(); peer < world; peer += threads) {
      wait_at_least(ctx, &state_[kFirstArrival + peer], epoch);
    }
    __syncthreads();
  }

  flag_t* state_;
};

}  // namespace symm::device
