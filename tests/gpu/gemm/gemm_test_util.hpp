#pragma once
// Helpers of the GEMM GPU tests: device checks, fresh random inputs (seed printed), NaN
// poisoning, and error measures against a reference. Device buffers are symm::DeviceBuffer
// (symm/host/cuda_resources.hpp).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gpu_presence.hpp"
#include "symm/gemm/types.hpp"
#include "symm/host/cuda_resources.hpp"

namespace symm::gemm::test {

#define SYMM_TEST_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call << ": " << cudaGetErrorString(cudaGetLastError())

// Empty when a GPU of compute capability `major`.`minor` or newer is present.
inline std::string missing_gpu(int major, int minor) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return "no CUDA GPU visible";
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "cudaGetDeviceProperties failed";
  if (prop.major * 10 + prop.minor < major * 10 + minor)
    return "needs compute capability " + std::to_string(major) + "." + std::to_string(minor) +
           ", found " + std::to_string(prop.major) + "." + std::to_string(prop.minor);
  return {};
}
inline bool is_sm90() {
  cudaDeviceProp prop{};
  return cudaGetDeviceProperties(&prop, 0) == cudaSuccess && prop.major == 9 && prop.minor == 0;
}

inline std::uint64_t fresh_seed() {
  const std::uint64_t seed = (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  std::printf("random seed %llu\n", static_cast<unsigned long long>(seed));
  return seed;
}

// rows x ld host matrix of 16-bit values uniform in [-1, 1]; also returned as floats
// (the exact values the GPU sees) in `exact`.
inline std::vector<std::uint16_t> random_matrix(std::int64_t rows, std::int64_t ld, DType t,
                                                std::mt19937_64& rng, std::vector<float>& exact) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<std::uint16_t> bits(rows * ld);
  exact.resize(rows * ld);
  for (std::size_t i = 0; i < bits.size(); ++i) {
    const float x = dist(rng);
    if (t == DType::bf16) {
      const __nv_bfloat16 h = __float2bfloat16(x);
      bits[i] = reinterpret_cast<const std::uint16_t&>(h);
      exact[i] = __bfloat162float(h);
    } else {
      const __half h = __float2half(x);
      bits[i] = reinterpret_cast<const std::uint16_t&>(h);
      exact[i] = __half2float(h);
    }
  }
  return bits;
}

// Device rows x ld matrix of `dtype` -> host floats (NaN stays NaN).
inline std::vector<float> download(const void* dev, std::int64_t count, DType t) {
  std::vector<float> out(count);
  if (t == DType::fp32) {
    cudaMemcpy(out.data(), dev, count * 4, cudaMemcpyDeviceToHost);
    return out;
  }
  std::vector<std::uint16_t> bits(count);
  cudaMemcpy(bits.data(), dev, count * 2, cudaMemcpyDeviceToHost);
  for (std::int64_t i = 0; i < count; ++i) {
    if (t == DType::bf16)
      out[i] = __bfloat162float(reinterpret_cast<const __nv_bfloat16&>(bits[i]));
    else
      out[i] = __half2float(reinterpret_cast<const __half&>(bits[i]));
  }
  return out;
}

// Documented tolerance of an output type: its rounding (half an ulp relative), doubled.
inline double output_tolerance(DType out) {
  return out == DType::bf16 ? 1.0 / 128 : out == DType::fp16 ? 1.0 / 1024 : 1e-4;
}

struct Comparison {
  double rel_fro = 0;       // ||got - ref||_F / ||ref||_F
  std::int64_t bad = 0;     // elements outside |d| <= tol * (|ref| + rms(ref)), NaN included
  std::string first_bad;    // where the first one is
};

// Compares the rows x cols block of `got` (leading dimension ld_got) with `ref`.
inline Comparison compare(const std::vector<float>& got, std::int64_t ld_got,
                          const std::vector<float>& ref, std::int64_t ld_ref, std::int64_t rows,
                          std::int64_t cols, double tol) {
  double err2 = 0, ref2 = 0;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) ref2 += double(ref[i * ld_ref + j]) * ref[i * ld_ref + j];
  const double rms = std::sqrt(ref2 / double(rows * cols));
  Comparison c;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      const double g = got[i * ld_got + j], r = ref[i * ld_ref + j], d = g - r;
      err2 += std::isfinite(d) ? d * d : 1e300;
      if (!(std::fabs(d) <= tol * (std::fabs(r) + rms))) {
        if (c.bad++ == 0)
          c.first_bad = "(" + std::to_string(i) + ", " + std::to_string(j) + "): got " +
                        std::to_string(g) + ", expected " + std::to_string(r);
      }
    }
  c.rel_fro = std::sqrt(err2 / ref2);
  return c;
}

}  // namespace symm::gemm::test
