// Rank bodies that must fail, loudly and quickly: a wait nobody will satisfy, and (this
// file is compiled with SYMM_DEBUG=1) the debug-build checks of scope and address.
// Each prints, from the host, what the device report must mention.
#include <cooperative_groups.h>
#include <cuda/atomic>

#include <cstdint>
#include <cstdio>

#include "rank_bodies.hpp"
#include "symm/device/atomic.cuh"
#include "symm/device/signal.cuh"
#include "symm/device/tile.cuh"
#include "symm/host/cuda_check.hpp"

namespace symm::test {
namespace {

using device::Context;
using device::flag_t;

__global__ void wait_forever(Context ctx, const flag_t* flag, flag_t expected) {
  device::wait_equal(ctx, flag, expected);
}

__global__ void add_with_device_scope(Context ctx, int* x, int peer) {
  device::atomic_add<cuda::memory_order_relaxed, cuda::thread_scope_device>(ctx, x, peer, 1);
}

__global__ void add_outside_the_heap(Context ctx, int* x, int peer) {
  device::atomic_add(ctx, x, peer, 1);
}

__global__ void put_past_the_heap_end(Context ctx, float* dst_local, const float* src, int peer) {
  device::put_range(cooperative_groups::this_thread_block(), ctx, dst_local, src, 32, peer);
}

// Runs the kernel that `launch` enqueues on the last rank and waits for it: the caller
// expects this to throw (the kernel traps); the other ranks do nothing.
template <class Launch>
int run_on_last_rank(Runtime& rt, Launch&& launch) {
  if (rt.rank() == rt.world() - 1) {
    launch();
    SYMM_CUDA_CHECK(cudaGetLastError());
    SYMM_CUDA_CHECK(cudaDeviceSynchronize());
  }
  return 0;
}

}  // namespace

int unsatisfiable_wait_body(Runtime& rt) {
  auto* flag = static_cast<flag_t*>(rt.heap().allocate(64));
  SYMM_CUDA_CHECK(cudaMemset(flag, 0, sizeof(flag_t)));
  const long long offset = reinterpret_cast<std::byte*>(flag) - rt.heap().base();
  std::printf("flag at heap offset %lld\n", offset);
  std::fflush(stdout);
  return run_on_last_rank(rt, [&] { wait_forever<<<1, 1>>>(rt.context(), flag, flag_t{7}); });
}

int narrow_scope_on_peer_body(Runtime& rt) {
  auto* x = static_cast<int*>(rt.heap().allocate(sizeof(int)));
  return run_on_last_rank(rt, [&] { add_with_device_scope<<<1, 1>>>(rt.context(), x, 0); });
}

int range_past_heap_end_body(Runtime& rt) {
  // 32 floats from 64 bytes before the heap's end: the first byte lies in it, the last not.
  auto* near_end = reinterpret_cast<float*>(rt.heap().base() + rt.heap().size() - 64);
  float* src = nullptr;
  SYMM_CUDA_CHECK(cudaMalloc(&src, 32 * sizeof(float)));
  return run_on_last_rank(rt, [&] { put_past_the_heap_end<<<1, 32>>>(rt.context(), near_end, src, 0); });
}

int address_outside_heap_body(Runtime& rt) {
  int* outside = nullptr;
  SYMM_CUDA_CHECK(cudaMalloc(&outside, sizeof(int)));
  return run_on_last_rank(rt, [&] { add_outside_the_heap<<<1, 1>>>(rt.context(), outside, 0); });
}

}  // namespace symm::test
