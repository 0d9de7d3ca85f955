#pragma once
// Counter-based random numbers for tensor factories, usable on host and device.
//
// Element i of a tensor seeded with s takes its bits from Philox4x32-10 (Salmon et al.,
// "Parallel random numbers: as easy as 1, 2, 3", SC'11) with key s and counter i: no
// state, no ordering between threads, and the same bits on every rank and every GPU.
// The host versions let tests check the device's output bit for bit.
#include <cmath>
#include <cstdint>

#include "symm/common/tensor.hpp"  // SYMM_HOST_DEVICE

namespace symm::random {

struct Words {
  std::uint32_t w[4];
};

SYMM_HOST_DEVICE void multiply_wide(std::uint32_t a, std::uint32_t b, std::uint32_t& high,
                                    std::uint32_t& low) {
  const std::uint64_t product = static_cast<std::uint64_t>(a) * b;
  high = static_cast<std::uint32_t>(product >> 32);
  low = static_cast<std::uint32_t>(product);
}

SYMM_HOST_DEVICE Words philox4x32_10(Words counter, std::uint32_t key0, std::uint32_t key1) {
  constexpr std::uint32_t kMultiplier0 = 0xD2511F53u, kMultiplier1 = 0xCD9E8D57u;
  constexpr std::uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    std::uint32_t high0, low0, high1, low1;
    multiply_wide(kMultiplier0, counter.w[0], high0, low0);
    multiply_wide(kMultiplier1, counter.w[2], high1, low1);
    counter = {{high1 ^ counter.w[1] ^ key0, low1, high0 ^ counter.w[3] ^ key1, low0}};
    key0 += kWeyl0;
    key1 += kWeyl1;
  }
  return counter;
}

// The four random words of element `index` of the tensor seeded with `seed`.
SYMM_HOST_DEVICE Words element_words(std::uint64_t seed, std::uint64_t index) {
  const Words counter = {{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32),
                          0u, 0u}};
  return philox4x32_10(counter, static_cast<std::uint32_t>(seed),
                       static_cast<std::uint32_t>(seed >> 32));
}

// Uniform in [0, 1) from 24 random bits (the float mantissa) or 53 (the double's).
SYMM_HOST_DEVICE float unit_float(std::uint32_t word) {
  return static_cast<float>(word >> 8) * 0x1.0p-24f;
}
SYMM_HOST_DEVICE double unit_double(std::uint32_t high, std::uint32_t low) {
  const std::uint64_t bits = (static_cast<std::uint64_t>(high) << 32 | low) >> 11;
  return static_cast<double>(bits) * 0x1.0p-53;
}

// Element `index` of uniform(seed) over [low, high): computed in float for types of
// 32 bits or fewer (then rounded to the element type), in double for fp64.
template <class T>
SYMM_HOST_DEVICE T uniform_element(std::uint64_t seed, std::uint64_t index, double low,
                                   double high) {
  const Words r = element_words(seed, index);
  // Explicit fused multiply-adds: the compiler may not contract differently on host and
  // device, so both produce the same bits.
  if constexpr (sizeof(T) == 8) {
    return static_cast<T>(fma(high - low, unit_double(r.w[0], r.w[1]), low));
  } else {
    const auto lo = static_cast<float>(low), hi = static_cast<float>(high);
    return T(fmaf(hi - lo, unit_float(r.w[0]), lo));
  }
}

// Element `index` of randint(seed) over [low, low + range), range >= 1. The modulo of
// 64 random bits is biased by at most range / 2^64.
template <class T>
SYMM_HOST_DEVICE T randint_element(std::uint64_t seed, std::uint64_t index, std::int64_t low,
                                   std::uint64_t range) {
  const Words r = element_words(seed, index);
  const std::uint64_t bits = static_cast<std::uint64_t>(r.w[0]) << 32 | r.w[1];
  return static_cast<T>(static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + bits % range));
}

}  // namespace symm::random
