// Runtime (input type, output type, B layout) -> the compiled kernel instance.
#include "launch.hpp"

namespace symm::gemm::detail {
namespace {

// Calls f.operator()<IN, OUT, LAYOUT>() for the runtime values; the output is either the
// input type or fp32 (validate() checked it).
template <class F>
void dispatch(DType in, DType out, BLayout layout, F&& f) {
  auto with_layout = [&]<DType I, DType O>() {
    if (layout == BLayout::kn)
      f.template operator()<I, O, BLayout::kn>();
    else
      f.template operator()<I, O, BLayout::nk>();
  };
  auto with_out = [&]<DType I>() {
    if (out == DType::fp32)
      with_layout.template operator()<I, DType::fp32>();
    else
      with_layout.template operator()<I, I>();
  };
  if (in == DType::bf16)
    with_out.template operator()<DType::bf16>();
  else
    with_out.template operator()<DType::fp16>();
}

}  // namespace

void launch_wgmma(DType in, DType out, BLayout layout, const WgmmaLaunch& launch,
                  const WgmmaParams& params, cudaStream_t stream) {
  dispatch(in, out, layout, [&]<DType I, DType O, BLayout L>() {
    launch_wgmma_typed<I, O, L>(launch, params, stream);
  });
}

void launch_fallback(DType in, DType out, BLayout layout, const KernelConfig& config,
                     bool aligned_loads, const FallbackParams& params, cudaStream_t stream) {
  dispatch(in, out, layout, [&]<DType I, DType O, BLayout L>() {
    launch_fallback_typed<I, O, L>(config, aligned_loads, params, stream);
  });
}

}  // namespace symm::gemm::detail
