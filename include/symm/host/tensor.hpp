#pragma once
// Tensor factories on the symmetric heap: the Iris set (zeros, ones, full, empty,
// arange, linspace, rand, randn, randint, zeros_like) for every symm::Element type.
//
// Each one is collective, as Heap::allocate is: every rank makes the same tensors in
// the same order. Each fills on `stream` and returns at once (stream-ordered, as
// cudaMemsetAsync is). Random tensors are made on the device by a counter-based
// generator (Philox4x32-10) from (seed, element index) alone, so every rank that asks
// for the same tensor with the same seed gets the same bits, on any GPU.
//
//   auto a = symm::randn<symm::bf16>(rt.heap(), {m, k}, /*seed=*/1, stream);
//   auto c = symm::zeros<float>(rt.heap(), {m, n}, stream);
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "symm/common/tensor.hpp"
#include "symm/host/heap.hpp"

namespace symm {
namespace detail {

// Kernels (src/runtime/fill.cu), instantiated for every Element type.
template <Element T>
void fill_on_device(T* data, std::size_t count, T value, cudaStream_t stream);
template <Element T>  // data[i] = start + i * step, computed in double
void affine_on_device(T* data, std::size_t count, double start, double step, cudaStream_t stream);
template <Element T>  // uniform in [low, high)
void uniform_on_device(T* data, std::size_t count, std::uint64_t seed, double low, double high,
                       cudaStream_t stream);
template <Element T>  // normal (Box-Muller)
void normal_on_device(T* data, std::size_t count, std::uint64_t seed, double mean, double stddev,
                      cudaStream_t stream);
template <Element T>  // uniform integers in [low, low + range)
void randint_on_device(T* data, std::size_t count, std::uint64_t seed, std::int64_t low,
                       std::uint64_t range, cudaStream_t stream);

// Host-side checks and byte fills (src/runtime/tensor_factories.cc).
void memset_on_device(void* data, int byte, std::size_t bytes, cudaStream_t stream);
std::int64_t arange_length(double start, double end, double step);  // throws on bad input
// Throws unless every value in [first, last] is representable in `type` (integers only).
void check_values_fit(DType type, double first, double last, const char* factory);
void check_randint_range(DType type, std::int64_t low, std::int64_t high);

}  // namespace detail

// Uninitialised in meaning, but filled with all-ones bytes (NaN for floating types, -1
// for integers) so that a result never written cannot pass for a computed one.
template <Element T>
Tensor<T> empty(Heap& heap, const Shape& shape, cudaStream_t stream) {
  Tensor<T> t = heap.allocate_tensor<T>(shape);
  detail::memset_on_device(t.data, 0xFF, t.bytes(), stream);
  return t;
}

template <Element T>
Tensor<T> zeros(Heap& heap, const Shape& shape, cudaStream_t stream) {
  Tensor<T> t = heap.allocate_tensor<T>(shape);
  detail::memset_on_device(t.data, 0, t.bytes(), stream);
  return t;
}

template <Element T>
Tensor<T> zeros_like(Heap& heap, const Tensor<T>& like, cudaStream_t stream) {
  return zeros<T>(heap, like.shape, stream);
}

template <Element T>
Tensor<T> full(Heap& heap, const Shape& shape, T value, cudaStream_t stream) {
  Tensor<T> t = heap.allocate_tensor<T>(shape);
  detail::fill_on_device(t.data, static_cast<std::size_t>(t.numel()), value, stream);
  return t;
}

template <Element T>
Tensor<T> ones(Heap& heap, const Shape& shape, cudaStream_t stream) {
  return full<T>(heap, shape, T(1.0f), stream);
}

// [start, end) in steps of `step`, as a 1-D tensor (integer tensors truncate each value
// toward zero).
template <Element T>
Tensor<T> arange(Heap& heap, double start, double end, double step, cudaStream_t stream) {
  const std::int64_t n = detail::arange_length(start, end, step);
  if (n > 0) detail::check_values_fit(dtype_of<T>, start, start + (n - 1) * step, "arange");
  Tensor<T> t = heap.allocate_tensor<T>({n});
  detail::affine_on_device(t.data, static_cast<std::size_t>(n), start, step, stream);
  return t;
}

// `steps` evenly spaced values from start to end inclusive, as a 1-D tensor (integer
// tensors truncate each value toward zero).
template <Element T>
Tensor<T> linspace(Heap& heap, double start, double end, std::int64_t steps, cudaStream_t stream) {
  if (steps < 0) throw Error("symm::linspace: steps must be >= 0, got " + std::to_string(steps));
  if (steps > 0) detail::check_values_fit(dtype_of<T>, start, end, "linspace");
  const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
  Tensor<T> t = heap.allocate_tensor<T>({steps});
  detail::affine_on_device(t.data, static_cast<std::size_t>(steps), start, step, stream);
  return t;
}

// Uniform in [low, high).
template <Element T>
Tensor<T> rand(Heap& heap, const Shape& shape, std::uint64_t seed, cudaStream_t stream,
               double low = 0.0, double high = 1.0) {
  static_assert(is_floating_element_v<T>,
                "symm::rand makes floating-point tensors (fp16, bf16, fp32, fp64); "
                "use symm::randint for integer tensors");
  Tensor<T> t = heap.allocate_tensor<T>(shape);
  detail::uniform_on_device(t.data, static_cast<std::size_t>(t.numel()), seed, low, high, stream);
  return t;
}

// Normal with the given mean and standard deviation.
template <Element T>
Tensor<T> randn(Heap& heap, const Shape& shape, std::uint64_t seed, cudaStream_t stream,
                double mean = 0.0, double stddev = 1.0) {
  static_assert(is_floating_element_v<T>,
                "symm::randn makes floating-point tensors (fp16, bf16, fp32, fp64); "
                "use symm::randint for integer tensors");
  Tensor<T> t = heap.allocate_tensor<T>(shape);
  detail::normal_on_device(t.data, static_cast<std::size_t>(t.numel()), seed, mean, stddev,
                           stream);
  return t;
}

// Uniform integers in [low, high).
template <Element T>
Tensor<T> randint(Heap& heap, const Shape& shape, std::int64_t low, std::int64_t high,
                  std::uint64_t seed, cudaStream_t stream) {
  static_assert(is_integer_element_v<T>,
                "symm::randint makes integer tensors (int8, int32, int64); "
                "use symm::rand or symm::randn for floating-point tensors");
  detail::check_randint_range(dtype_of<T>, low, high);
  Tensor<T> t = heap.allocate_tensor<T>(shape);
  const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  detail::randint_on_device(t.data, static_cast<std::size_t>(t.numel()), seed, low, range, stream);
  return t;
}

}  // namespace symm
