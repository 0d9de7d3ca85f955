// Fill kernels behind the tensor factories: one grid-stride kernel, one small generator
// per factory. Portable code (built for sm_80 and sm_90a).
#include <algorithm>
#include <cstdint>

#include "random.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/tensor.hpp"

namespace symm::detail {
namespace {

constexpr unsigned kThreads = 256;
constexpr std::size_t kMaxBlocks = std::size_t{1} << 16;  // grid-stride beyond this

template <class T>
__device__ T from_double(double value) {
  if constexpr (std::is_same_v<T, fp16>) {
    return __double2half(value);
  } else if constexpr (std::is_same_v<T, bf16>) {
    return __double2bfloat16(value);
  } else {
    return static_cast<T>(value);  // integers truncate; the host checked the range
  }
}

template <class T>
struct Constant {
  T value;
  __device__ T operator()(std::uint64_t) const { return value; }
};

template <class T>
struct Affine {
  double start, step;
  __device__ T operator()(std::uint64_t i) const {
    return from_double<T>(fma(static_cast<double>(i), step, start));
  }
};

template <class T>
struct Uniform {
  std::uint64_t seed;
  double low, high;
  __device__ T operator()(std::uint64_t i) const {
    return random::uniform_element<T>(seed, i, low, high);
  }
};

// Box-Muller on two uniforms, in float for types of 32 bits or fewer, double for fp64.
template <class T>
struct Normal {
  std::uint64_t seed;
  double mean, stddev;
  __device__ T operator()(std::uint64_t i) const {
    const random::Words r = random::element_words(seed, i);
    if constexpr (sizeof(T) == 8) {
      const double u1 = 1.0 - random::unit_double(r.w[0], r.w[1]);  // (0, 1]: log is finite
      const double u2 = random::unit_double(r.w[2], r.w[3]);
      return fma(stddev, sqrt(-2.0 * log(u1)) * cospi(2.0 * u2), mean);
    } else {
      const float u1 = 1.0f - random::unit_float(r.w[0]);
      const float u2 = random::unit_float(r.w[1]);
      const float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
      return T(fmaf(static_cast<float>(stddev), z, static_cast<float>(mean)));
    }
  }
};

template <class T>
struct RandInt {
  std::uint64_t seed;
  std::int64_t low;
  std::uint64_t range;
  __device__ T operator()(std::uint64_t i) const {
    return random::randint_element<T>(seed, i, low, range);
  }
};

template <class T, class Generator>
__global__ void generate_kernel(T* data, std::size_t count, Generator generate) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    data[i] = generate(i);
  }
}

template <class T, class Generator>
void generate(T* data, std::size_t count, Generator generator, cudaStream_t stream,
              const char* what) {
  if (count == 0) return;
  const auto blocks = static_cast<unsigned>(std::min((count + kThreads - 1) / kThreads, kMaxBlocks));
  generate_kernel<<<blocks, kThreads, 0, stream>>>(data, count, generator);
  check_cuda(cudaGetLastError(), what);
}

}  // namespace

template <Element T>
void fill_on_device(T* data, std::size_t count, T value, cudaStream_t stream) {
  generate(data, count, Constant<T>{value}, stream, "launch of the symm::full kernel");
}

template <Element T>
void affine_on_device(T* data, std::size_t count, double start, double step, cudaStream_t stream) {
  generate(data, count, Affine<T>{start, step}, stream, "launch of the arange/linspace kernel");
}

template <Element T>
void uniform_on_device(T* data, std::size_t count, std::uint64_t seed, double low, double high,
                       cudaStream_t stream) {
  generate(data, count, Uniform<T>{seed, low, high}, stream, "launch of the symm::rand kernel");
}

template <Element T>
void normal_on_device(T* data, std::size_t count, std::uint64_t seed, double mean, double stddev,
                      cudaStream_t stream) {
  generate(data, count, Normal<T>{seed, mean, stddev}, stream, "launch of the symm::randn kernel");
}

template <Element T>
void randint_on_device(T* data, std::size_t count, std::uint64_t seed, std::int64_t low,
                       std::uint64_t range, cudaStream_t stream) {
  generate(data, count, RandInt<T>{seed, low, range}, stream, "launch of the symm::randint kernel");
}

#define SYMM_INSTANTIATE_EVERY_TYPE(T)                                                    \
  template void fill_on_device<T>(T*, std::size_t, T, cudaStream_t);                      \
  template void affine_on_device<T>(T*, std::size_t, double, double, cudaStream_t);
#define SYMM_INSTANTIATE_FLOATING(T)                                                          \
  template void uniform_on_device<T>(T*, std::size_t, std::uint64_t, double, double,         \
                                     cudaStream_t);                                           \
  template void normal_on_device<T>(T*, std::size_t, std::uint64_t, double, double, cudaStream_t);
#define SYMM_INSTANTIATE_INTEGER(T) \
  template void randint_on_device<T>(T*, std::size_t, std::uint64_t, std::int64_t, std::uint64_t, \
                                     cudaStream_t);

SYMM_INSTANTIATE_EVERY_TYPE(std::int8_t)
SYMM_INSTANTIATE_EVERY_TYPE(std::int32_t)
SYMM_INSTANTIATE_EVERY_TYPE(std::int64_t)
SYMM_INSTANTIATE_EVERY_TYPE(fp16)
SYMM_INSTANTIATE_EVERY_TYPE(bf16)
SYMM_INSTANTIATE_EVERY_TYPE(float)
SYMM_INSTANTIATE_EVERY_TYPE(double)
SYMM_INSTANTIATE_FLOATING(fp16)
SYMM_INSTANTIATE_FLOATING(bf16)
SYMM_INSTANTIATE_FLOATING(float)
SYMM_INSTANTIATE_FLOATING(double)
SYMM_INSTANTIATE_INTEGER(std::int8_t)
SYMM_INSTANTIATE_INTEGER(std::int32_t)
SYMM_INSTANTIATE_INTEGER(std::int64_t)

}  // namespace symm::detail
