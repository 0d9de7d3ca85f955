// Each shard's block of C (its N/world columns) is one problem for the shared fp32
// reference GEMM, writing into the full-width reference (ldc = N).
#include "reference.hpp"

#include <fmt/format.h>

#include "operands.hpp"
#include "symm/baselines/reference_gemm.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/cuda_resources.hpp"

namespace symm::examples::gemm_all_scatter {

Reference::Reference(const ops::AllScatterShape& shape, int world, const void* a,
                     std::uint64_t seed, cudaStream_t stream) {
  const std::int64_t m = shape.m, n = shape.n, k = shape.k, n_w = n / world;
  const std::size_t ref_bytes = static_cast<std::size_t>(m * n) * sizeof(float);
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&ref_), ref_bytes), fmt::format("cudaMalloc({} bytes of reference C)", ref_bytes),
             "free GPU memory, or validate a smaller problem");
  try {
    const DeviceBuffer shard(static_cast<std::size_t>(shard_elements(shape, world)) * gemm::dtype_bytes(shape.dtype),
                             "reference B shard");
    const baselines::ReferenceGemm reference_gemm;
    const bool nk = shape.b_layout == gemm::BLayout::nk;
    for (int s = 0; s < world; ++s) {
      fill_b_shard(shard.get(), shape, world, s, seed, stream);
      reference_gemm.run({m, n_w, k, a, k, shard.get(), nk ? k : n_w, shape.b_layout, ref_ + s * n_w, n, shape.dtype,
                gemm::DType::fp32},
               stream);
    }
    // The scratch shard is freed when this scope ends: wait for the GEMMs reading it.
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(reference)");
  } catch (...) {
    warn_on_cuda_error(cudaFree(ref_), "cudaFree(reference C)");
    throw;
  }
}

Reference::~Reference() { warn_on_cuda_error(cudaFree(ref_), "cudaFree(reference C)"); }

}  // namespace symm::examples::gemm_all_scatter
