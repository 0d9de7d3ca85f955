#pragma once
// Device-side failure reports: print where and why, then trap.
//
// A trap ends the kernel with an error the host sees at its next synchronisation
// (cudaErrorLaunchFailure or similar), so a broken protocol becomes a clear failure
// instead of a hang or silent corruption. The message is one printf so that lines from
// different threads never interleave.
#ifdef __CUDACC__  // host compilers see Context too, but never the failure macro
#include <cuda/ptx>
#endif

#include <cstdio>

namespace symm::device {

// Checks that cost time on every call (peer range, heap range, scope on peer
// addresses) run only in debug builds; bounded waits are checked in every build.
#if defined(SYMM_DEBUG) && SYMM_DEBUG
inline constexpr bool kDebugChecks = true;
#else
inline constexpr bool kDebugChecks = false;
#endif

}  // namespace symm::device

// SYMM_DEVICE_FAIL(rank, "format", args...): one line naming rank, block and thread,
// then __trap(). `format` must be a string literal. A host compiler (a .cc file that
// needs the Context type) never runs device code, so there it expands to nothing.
#ifndef __CUDACC__
#define SYMM_DEVICE_FAIL(rank, format, ...) ((void)(rank))
#else
#define SYMM_DEVICE_FAIL(rank, format, ...)                                                 \
  do {                                                                                      \
    printf("symm: device error on rank %d, block (%u,%u,%u), thread (%u,%u,%u): " format \
           "\n",                                                                            \
           (rank), blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y,           \
           threadIdx.z __VA_OPT__(, ) __VA_ARGS__);                                         \
    cuda::ptx::trap();                                                                      \
  } while (0)
#endif
