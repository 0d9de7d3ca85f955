#pragma once
// Element types of the kernels and the conversions the epilogues need.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "symm/gemm/types.hpp"

namespace symm::gemm {

template <DType T>
struct ElementOf;
template <>
struct ElementOf<DType::bf16> {
  using type = __nv_bfloat16;
};
template <>
struct ElementOf<DType::fp16> {
  using type = __half;
};
template <>
struct ElementOf<DType::fp32> {
  using type = float;
};
template <DType T>
using element_t = typename ElementOf<T>::type;

template <class T>
inline constexpr bool kIsFp16 = std::is_same_v<T, __half>;

// Two adjacent fp32 results converted to the output type and packed for one store (`pair`,
// of type `Pair`).
template <class Out>
struct Converted;
template <>
struct Converted<float> {
  using Pair = float2;
  __device__ __forceinline__ static float2 pair(float x, float y) { return make_float2(x, y); }
};
template <>
struct Converted<__nv_bfloat16> {
  using Pair = __nv_bfloat162;
  __device__ __forceinline__ static __nv_bfloat162 pair(float x, float y) { return __floats2bfloat162_rn(x, y); }
};
template <>
struct Converted<__half> {
  using Pair = __half2;
  __device__ __forceinline__ static __half2 pair(float x, float y) { return __floats2half2_rn(x, y); }
};

}  // namespace symm::gemm
