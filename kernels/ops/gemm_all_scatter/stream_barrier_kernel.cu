// The stream barrier's kernel: one block; thread p raises this rank's arrival flag on
// peer p with the new epoch (system scope: another process reads it) and waits for peer
// p's flag here. Everything enqueued before it on the stream has completed when it
// passes griddepcontrol.wait (the kernel boundary), and its system-scope fence orders
// those writes before the release; a peer that sees the flag therefore sees this rank's
// pushes into its heap.
//
// It is launched as a programmatic dependent of the kernel before it: where that kernel
// lets its dependents launch early (the fused GEMM kernels do, at their start), this
// block is scheduled while it runs, and only its wait remains after it, not a launch.
#include <cuda/atomic>
#include <cuda/ptx>

#include "launch.hpp"
#include "symm/device/signal.cuh"
#include "symm/host/cuda_check.hpp"

namespace symm::ops::detail {
namespace {

__global__ void stream_barrier_kernel(device::Context ctx, device::flag_t* arrivals,
                                      device::flag_t* epoch, std::uint64_t* exit_time) {
  cudaGridDependencySynchronize();  // the kernel before it has completed, its writes visible
  const device::flag_t next = *epoch + 1;
  device::fence<cuda::memory_order_acq_rel, cuda::thread_scope_system>();
  const int peer = int(threadIdx.x);
  if (peer < ctx.world && peer != ctx.rank) {
    device::signal_set(ctx, &arrivals[ctx.rank], peer, next);
    device::wait_at_least(ctx, &arrivals[peer], next);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    *epoch = next;
    if (exit_time) *exit_time = cuda::ptx::get_sreg_globaltimer();  // a traced run's time zero
  }
}

}  // namespace

void launch_stream_barrier(const device::Context& ctx, std::uint64_t* arrivals, std::uint64_t* epoch,
                           std::uint64_t* exit_time, cudaStream_t stream) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(1);
  config.blockDim = dim3(unsigned((ctx.world + 31) / 32 * 32));
  config.stream = stream;
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &early;
  config.numAttrs = 1;
  check_cuda(cudaLaunchKernelEx(&config, stream_barrier_kernel, ctx, arrivals, epoch, exit_time),
             "cudaLaunchKernelEx(stream_barrier_kernel)");
}

}  // namespace symm::ops::detail
