#pragma once
// Raw-bits views of values: an unsigned type of the same size, so one code path serves
// every element type (fp16, bf16, float, structs...) for moves and bitwise atomics.
#include <cuda/std/bit>
#include <vector_types.h>

#include <cstdint>
#include <type_traits>

namespace symm::device {

namespace detail {
template <std::size_t Bytes> struct bits_of;
template <> struct bits_of<1> { using type = std::uint8_t; };
template <> struct bits_of<2> { using type = std::uint16_t; };
template <> struct bits_of<4> { using type = std::uint32_t; };
template <> struct bits_of<8> { using type = unsigned long long; };  // what CUDA's intrinsics take
template <> struct bits_of<16> { using type = uint4; };
}  // namespace detail

// Anything moved by one load or store instruction: 1, 2, 4, 8 or 16 bytes, naturally
// aligned.
template <class T>
concept Movable = std::is_trivially_copyable_v<T> &&
                  (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 ||
                   sizeof(T) == 16) &&
                  alignof(T) >= sizeof(T);

template <Movable T>
using bits_t = typename detail::bits_of<sizeof(T)>::type;

template <Movable T>
__device__ __forceinline__ bits_t<T> to_bits(T value) {
  return cuda::std::bit_cast<bits_t<T>>(value);
}

template <Movable T>
__device__ __forceinline__ T from_bits(bits_t<T> bits) {
  return cuda::std::bit_cast<T>(bits);
}

// 16 bytes of T: the unit of vector loads and stores (ld/st.global.v4.b32).
template <class T>
struct alignas(16) Vec16 {
  static_assert(16 % sizeof(T) == 0, "Vec16<T>: sizeof(T) must divide 16");
  static constexpr int size = 16 / sizeof(T);
  T elements[size];

  __host__ __device__ T& operator[](int i) { return elements[i]; }
  __host__ __device__ const T& operator[](int i) const { return elements[i]; }
};

}  // namespace symm::device
