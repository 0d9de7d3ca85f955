// Runtime (dtype, B layout) -> the fused kernel instance built for it.
#include "launch.hpp"
#include "symm/common/error.hpp"

namespace symm::ops::detail {

void launch_fused(gemm::DType dtype, gemm::BLayout layout, const FusedLaunch& launch,
                  cudaStream_t stream) {
  using gemm::BLayout;
  using gemm::DType;
  if (dtype == DType::bf16 && layout == BLayout::kn) return launch_fused_typed<DType::bf16, BLayout::kn>(launch, stream);
  if (dtype == DType::bf16 && layout == BLayout::nk) return launch_fused_typed<DType::bf16, BLayout::nk>(launch, stream);
  if (dtype == DType::fp16 && layout == BLayout::kn) return launch_fused_typed<DType::fp16, BLayout::kn>(launch, stream);
  if (dtype == DType::fp16 && layout == BLayout::nk) return launch_fused_typed<DType::fp16, BLayout::nk>(launch, stream);
  throw Error("symm gemm_all_scatter: A, B and C must be bf16 or fp16");
}

}  // namespace symm::ops::detail
