#pragma once
// The epoch of the tile flags (params.hpp TileFlags), one rule for the GEMM blocks that
// raise them (hooks.cuh) and the push role that waits for them (push_tiles.cuh): a flag
// raised in this launch holds the launches the stream barrier has completed, plus one, so
// a flag left from an earlier launch never passes for a fresh one.
#include <cuda/atomic>

#include <cstdint>

#include "params.hpp"

namespace symm::ops::detail {

__device__ inline std::uint64_t this_launch_epoch(const TileFlags& f) {
  return cuda::atomic_ref<const std::uint64_t, cuda::thread_scope_device>(*f.epoch).load(cuda::memory_order_relaxed) + 1;
}

}  // namespace symm::ops::detail
