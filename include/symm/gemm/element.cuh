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

// Two adjacent fp32 results, converted and packed for one store.
template <class Out>
struct Packed2;
template <>
struct Packed2<float> {
  using type = float2;
  __device__ __forceinline__ static float2 pack(float x, float y) { return make_float2(x, y); }
};
template <>
struct Packed2<__nv_bfloat16> {
  using type = __nv_bfloat162;
  __device__ __forceinline__ static __nv_bfloat162 pack(float x, float y) {
    return __floats2bfloat162_rn(x, y);
  }
};
template <>
struct Packed2<__half> {
  using type = __half2;
  __device__ __forceinline__ static __half2 pack(float x, float y) { return __floats2half2_rn(x, y); }
};

// One fp32 result, converted (a swapped tile's epilogue stores elements one by one).
template <class Out>
struct Converted;
template <>
struct Converted<float> {
  __device__ __forceinline__ static float from(float x) { return x; }
};
template <>
struct Converted<__nv_bfloat16> {
  __device__ __forceinline__ static __nv_bfloat16 from(float x) { return __float2bfloat16_rn(x); }
};
template <>
struct Converted<__half> {
  __device__ __forceinline__ static __half from(float x) { return __float2half_rn(x); }
};

}  // namespace symm::gemm
