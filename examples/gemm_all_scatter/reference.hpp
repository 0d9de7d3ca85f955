#pragma once
// The reference C of a rank's validation: A @ B_s for every shard s, computed by cuBLAS
// with fp32 output from the same random bits (each shard regenerated into scratch
// memory outside the heap), so every rank can check its whole C on its own.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::examples::gemm_all_scatter {

class Reference {
 public:
  // `a` is this rank's A (the same on every rank); enqueues on `stream` and waits.
  Reference(const ops::AllScatterShape& shape, int world, const void* a, std::uint64_t seed,
            cudaStream_t stream);
  ~Reference();
  Reference(const Reference&) = delete;
  Reference& operator=(const Reference&) = delete;

  const float* data() const { return ref_; }  // M x N, row-major

 private:
  float* ref_ = nullptr;
};

}  // namespace symm::examples::gemm_all_scatter
