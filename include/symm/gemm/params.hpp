#pragma once
// What the kernels receive. Host code fills these (kernels/gemm/*.cc); the tensor maps
// travel inside the __grid_constant__ parameter block, as TMA requires.
#include <cuda.h>

#include <cstdint>

#include "symm/device/context.cuh"
#include "symm/gemm/scheduler.hpp"
#include "symm/gemm/wait_record.hpp"

namespace symm::gemm {

// Split-K scratch: partial fp32 tiles of every split but the last, and one arrival
// counter per (tile, consumer warpgroup) that the last split waits on and resets to 0.
struct SplitKWorkspace {
  float* partials = nullptr;
  int* counters = nullptr;
};

struct WgmmaParams {
  CUtensorMap a;  // M x K, box (BLK_K, BLK_M)
  CUtensorMap b;  // nk: N x K, box (BLK_K, BLK_N); kn: K x N, box (64, BLK_K)
  CUtensorMap b_tail;  // kn tiles not a multiple of 64 wide: box (kn_tail_cols, BLK_K); else b
  CUtensorMap c;  // M x N with ldc, box (128 bytes of columns, 64 rows)
  // The epilogue's smaller last piece of a tile: widths that are not a multiple of 128
  // bytes: the same C, box (the last BLK_N % columns-per-128-bytes columns, 64 rows),
  // swizzled to its 32- or 64-byte width; swapped tiles whose height is not a multiple
  // of 64: box (128 bytes of columns, the last BLK_M % 64 rows).
  CUtensorMap c_tail;
  TileScheduler sched;
  SplitKWorkspace splitk;
  int m = 0, n = 0;  // C extent, for the hook's clipped tile sizes
  // Bound on the producer's pipeline waits (which also end a kernel whose consumers wait
  // for a stage that never arrives) and on split-K arrivals; the host sets it from
  // SYMM_WAIT_TIMEOUT_MS (device_wait_timeout_ns()). On expiry the kernel fills
  // *wait_record (host-mapped; null: none) and traps (wait_record.hpp).
  std::uint64_t wait_timeout_ns = device::kDefaultWaitTimeoutMs * 1'000'000;
  GemmWaitRecord* wait_record = nullptr;
};

struct FallbackParams {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  int m = 0, n = 0, k = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  int k_splits = 1;          // split-K: blockIdx.z is the split; > 1 needs the workspace
  SplitKWorkspace splitk;    // one fp32 partial per (tile, split), one counter per tile
};

}  // namespace symm::gemm
