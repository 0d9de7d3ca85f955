#pragma once
// Element types of symmetric tensors, shared by host and device code.
//
// The seven types of the Iris tensor set: int8, int32, int64, fp16, bf16, fp32, fp64.
// fp16 and bf16 are CUDA's __half and __nv_bfloat16, whose headers compile with the
// host compiler too.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace symm {

enum class DType : std::uint8_t { int8, int32, int64, fp16, bf16, fp32, fp64 };

using fp16 = __half;
using bf16 = __nv_bfloat16;

template <class T>
inline constexpr bool is_floating_element_v =
    std::is_same_v<T, fp16> || std::is_same_v<T, bf16> || std::is_same_v<T, float> ||
    std::is_same_v<T, double>;

template <class T>
inline constexpr bool is_integer_element_v = std::is_same_v<T, std::int8_t> ||
                                             std::is_same_v<T, std::int32_t> ||
                                             std::is_same_v<T, std::int64_t>;

// The element types a symmetric tensor may hold.
template <class T>
concept Element = is_floating_element_v<T> || is_integer_element_v<T>;

template <Element T>
inline constexpr DType dtype_of = std::is_same_v<T, std::int8_t>    ? DType::int8
                                  : std::is_same_v<T, std::int32_t> ? DType::int32
                                  : std::is_same_v<T, std::int64_t> ? DType::int64
                                  : std::is_same_v<T, fp16>         ? DType::fp16
                                  : std::is_same_v<T, bf16>         ? DType::bf16
                                  : std::is_same_v<T, float>        ? DType::fp32
                                                                    : DType::fp64;

constexpr std::size_t dtype_size(DType type) {
  switch (type) {
    case DType::int8: return 1;
    case DType::fp16:
    case DType::bf16: return 2;
    case DType::int32:
    case DType::fp32: return 4;
    case DType::int64:
    case DType::fp64: return 8;
  }
  return 0;
}

// The names used on command lines and in result files ("bf16", "fp32", ...).
constexpr std::string_view dtype_name(DType type) {
  switch (type) {
    case DType::int8: return "int8";
    case DType::int32: return "int32";
    case DType::int64: return "int64";
    case DType::fp16: return "fp16";
    case DType::bf16: return "bf16";
    case DType::fp32: return "fp32";
    case DType::fp64: return "fp64";
  }
  return "?";
}

constexpr bool is_floating(DType type) {
  return type == DType::fp16 || type == DType::bf16 || type == DType::fp32 ||
         type == DType::fp64;
}

}  // namespace symm
