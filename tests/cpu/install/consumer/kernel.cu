#include <symm/symm.cuh>

#if __cplusplus < 202002L
#error "symm::cuda_flags must give installed users C++20 in .cu files"
#endif

// Every rank writes its rank into element `rank` of every peer's copy of `slots`.
__global__ void announce(symm::device::Context ctx, int* slots) {
  const int peer = static_cast<int>(threadIdx.x);
  if (peer < ctx.world) *ctx.translate(slots + ctx.rank, peer) = ctx.rank;
}

void launch_announce(const symm::device::Context& ctx, int* slots, cudaStream_t stream) {
  announce<<<1, 32, 0, stream>>>(ctx, slots);
}
