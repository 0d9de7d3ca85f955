#pragma once
// Compile-time loops over the element types, memory orders and scopes the device API
// supports, and conversions that let one test body serve every element type.
#include <cuda/atomic>
#include <cuda/std/bit>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <span>
#include <utility>
#include <vector>

#include "symm/host/runtime.hpp"

#define SYMM_TEST_HD __host__ __device__ inline

namespace symm::test {

template <class... T>
struct TypeList {};

using AllTypes = TypeList<std::int16_t, std::uint16_t, std::int32_t, std::uint32_t, std::int64_t,
                          std::uint64_t, float, double, __half, __nv_bfloat16>;

// f.template operator()<T>() for each T of the list.
template <class... T, class F>
void for_each_type_in(TypeList<T...>, F&& f) {
  (f.template operator()<T>(), ...);
}
template <class List, class F>
void for_each_type(F&& f) {
  for_each_type_in(List{}, std::forward<F>(f));
}

// f.template operator()<v>() for each v of a constexpr array.
template <auto& Values, class F, std::size_t... I>
void for_each_value_at(F&& f, std::index_sequence<I...>) {
  (f.template operator()<Values[I]>(), ...);
}
template <auto& Values, class F>
void for_each_value(F&& f) {
  for_each_value_at<Values>(std::forward<F>(f),
                            std::make_index_sequence<std::extent_v<std::remove_reference_t<decltype(Values)>>>{});
}

// f.template operator()<I>() for I in [0, N).
template <std::size_t N, class F, std::size_t... I>
void for_each_index_in(F&& f, std::index_sequence<I...>) {
  (f.template operator()<I>(), ...);
}
template <std::size_t N, class F>
void for_each_index(F&& f) {
  for_each_index_in<N>(std::forward<F>(f), std::make_index_sequence<N>{});
}

inline constexpr cuda::memory_order kRmwOrders[] = {
    cuda::memory_order_relaxed, cuda::memory_order_acquire, cuda::memory_order_release,
    cuda::memory_order_acq_rel};
inline constexpr cuda::thread_scope kScopes[] = {
    cuda::thread_scope_block, cuda::thread_scope_device, cuda::thread_scope_system};

template <class F>
void for_each_rmw_order(F&& f) {
  for_each_value<kRmwOrders>(std::forward<F>(f));
}
template <class F>
void for_each_scope(F&& f) {
  for_each_value<kScopes>(std::forward<F>(f));
}

inline std::string order_name(cuda::memory_order order) {
  switch (order) {
    case cuda::memory_order_relaxed: return "relaxed";
    case cuda::memory_order_acquire: return "acquire";
    case cuda::memory_order_release: return "release";
    case cuda::memory_order_acq_rel: return "acq_rel";
    default: return "seq_cst";
  }
}

inline std::string scope_name(cuda::thread_scope scope) {
  return scope == cuda::thread_scope_block    ? "block"
         : scope == cuda::thread_scope_device ? "device"
                                              : "system";
}

template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, __half>) return "fp16";
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bf16";
  else if constexpr (std::is_same_v<T, float>) return "fp32";
  else if constexpr (std::is_same_v<T, double>) return "fp64";
  else return (std::is_unsigned_v<T> ? "uint" : "int") + std::to_string(8 * sizeof(T));
}

template <class T>
inline constexpr bool is_unsigned_v = std::is_integral_v<T> && std::is_unsigned_v<T>;

// Small integers, exactly, in and out of every element type.
template <class T>
SYMM_TEST_HD T from_wide(std::int64_t v) {
  if constexpr (std::is_same_v<T, __half>) return __float2half(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16(static_cast<float>(v));
  else return static_cast<T>(v);
}

template <class T>
SYMM_TEST_HD std::int64_t to_wide(T v) {
  if constexpr (std::is_same_v<T, __half>) return static_cast<std::int64_t>(__half2float(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return static_cast<std::int64_t>(__bfloat162float(v));
  else return static_cast<std::int64_t>(v);
}

template <class T>
SYMM_TEST_HD std::uint64_t bits_of(T v) {
  std::uint64_t bits = 0;
  if constexpr (sizeof(T) == 2) bits = cuda::std::bit_cast<std::uint16_t>(v);
  else if constexpr (sizeof(T) == 4) bits = cuda::std::bit_cast<std::uint32_t>(v);
  else bits = cuda::std::bit_cast<std::uint64_t>(v);
  return bits;
}

template <class T>
SYMM_TEST_HD bool same_bits(T a, T b) {
  return bits_of(a) == bits_of(b);
}

// Every rank's `mine`, by rank (collective).
template <class T>
std::vector<std::vector<T>> gather_all(Runtime& rt, const std::vector<T>& mine) {
  const auto bytes = rt.team().all_gather(std::as_bytes(std::span(mine)));
  std::vector<std::vector<T>> all(rt.world(), std::vector<T>(mine.size()));
  for (int r = 0; r < rt.world(); ++r) {
    std::memcpy(all[r].data(), bytes.data() + r * mine.size() * sizeof(T), mine.size() * sizeof(T));
  }
  return all;
}

}  // namespace symm::test
