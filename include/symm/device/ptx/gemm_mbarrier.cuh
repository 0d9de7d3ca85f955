#pragma once
// The few mbarrier operations the GEMM pipeline needs, as asm volatile with the `_` sink
// operand. CCCL's cuda::ptx forms with release semantics return the barrier state from a
// non-volatile asm, which the compiler may delete when the state is unused; initialisation
// and waiting use cuda::ptx directly.
#include <cstdint>

#include <cuda/ptx>

#include "symm/device/ptx/gemm_smem.cuh"

namespace symm::ptx {

// One arrival that also announces `bytes` of asynchronous (TMA) writes to wait for.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                   smem_addr(bar)),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar))
               : "memory");
}

// One arrival on the barrier at the same shared-memory offset in block `cta_rank` of the
// cluster (this block included). Release at CTA scope, the default: what it orders is the
// arriving warpgroup's reads of a stage (its wgmmas have completed) before the producer's
// next TMA write into it, which waits for this arrival. With a release at cluster scope the
// cluster kernels ran at 0.63x (2026-12-01, H200, 8192^3: 457 against 728 TFLOP/s).
__device__ __forceinline__ void mbarrier_arrive_cluster(std::uint64_t* bar, std::uint32_t cta_rank) {
  asm volatile(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
      " mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(smem_addr(bar)),
      "r"(cta_rank)
      : "memory");
}

// Before a barrier's shared memory is used for anything else (PTX requires it).
__device__ __forceinline__ void mbarrier_inval(std::uint64_t* bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}

// Spins until the phase with parity `parity` has completed. A freshly initialised barrier
// counts as having completed the phase before phase 0, so waiting for parity 1 passes.
// No bound of its own: for the consumer warpgroups, whose registers are too tight for a
// clock (the largest tiles spill). The producer's bounded waits end a kernel whose
// consumers never see a stage arrive (the drain at the end of producer.cuh's run()).
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

// The same, bounded: false once `timeout_ns` has passed (`waited_ns` then says how long),
// and the caller records what it waited for and traps (gemm/wait_record.cuh; a printf
// anywhere in a GEMM kernel would make ptxas serialise every wgmma, C7510). The clock is
// read only once the first try fails, so a ready stage costs nothing more.
__device__ __forceinline__ bool mbarrier_wait_bounded(std::uint64_t* bar, std::uint32_t parity,
                                                      std::uint64_t timeout_ns, std::uint64_t& waited_ns) {
  if (cuda::ptx::mbarrier_try_wait_parity(bar, parity)) return true;
  const std::uint64_t start = cuda::ptx::get_sreg_globaltimer();
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
    waited_ns = cuda::ptx::get_sreg_globaltimer() - start;
    if (waited_ns > timeout_ns) return false;
  }
  return true;
}

// Named barrier among `threads` threads of the block (ids 1..15; 0 is __syncthreads).
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace symm::ptx
