#pragma once
// Whether a GPU test may run, skip, or must fail. GPUs are counted twice: through NVML,
// as the launcher counts them, and through the CUDA runtime, so a machine whose NVML is
// missing cannot make every GPU test skip. Under SYMM_REQUIRE_GPU=1 (set by every
// scripts/gpu-*.sh) finding no GPU at all is a failure, not a skip.
#include <gtest/gtest.h>

#include <string>

namespace symm::test {

struct GpuVerdict {
  bool fail = false;
  std::string why;  // empty: the test may run
};

GpuVerdict gpu_verdict(int needed);

// Narrows CUDA_VISIBLE_DEVICES to its first GPU (GPU 0 when unset), so that ranks
// launched from this process share one GPU even on a machine with several: the gpu tier
// tests ranks taking turns on one GPU. Call before launching ranks.
void share_first_visible_gpu();

}  // namespace symm::test

// Runs the rest of the current test only where `n` GPUs are usable; otherwise skips it,
// or fails it as gpu_verdict says, with the reason.
#define SYMM_REQUIRE_GPUS(n)                                                 \
  do {                                                                       \
    const ::symm::test::GpuVerdict symm_gpus = ::symm::test::gpu_verdict(n); \
    if (symm_gpus.fail) FAIL() << symm_gpus.why;                             \
    if (!symm_gpus.why.empty()) GTEST_SKIP() << symm_gpus.why;               \
  } while (0)
