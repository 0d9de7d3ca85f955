// Tensor factories on the device, for every element type: values of the deterministic
// ones, and random tensors that are bit-identical on every rank for one seed, different
// for another seed, and (rand, randint) equal bit for bit to the host's generator.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_ranks.hpp"
#include "random.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/dtype.hpp"
#include "symm/host/runtime.hpp"
#include "symm/host/tensor.hpp"

namespace symm::testing {
namespace {

constexpr std::int64_t kCount = (std::int64_t{1} << 20) + 3;  // not a multiple of any block

template <class T>
double as_double(T value) {
  if constexpr (std::is_same_v<T, fp16>) {
    return __half2float(value);
  } else if constexpr (std::is_same_v<T, bf16>) {
    return __bfloat162float(value);
  } else {
    return static_cast<double>(value);
  }
}

template <class T>
std::vector<T> to_host(const Tensor<T>& t, cudaStream_t stream) {
  std::vector<T> host(t.numel());
  SYMM_CUDA_CHECK(cudaMemcpyAsync(host.data(), t.data, t.bytes(), cudaMemcpyDeviceToHost, stream));
  SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

template <class T>
std::uint64_t fnv1a(const std::vector<T>& values) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  for (std::size_t i = 0; i < values.size() * sizeof(T); ++i) hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  return hash;
}

// True when every rank's hash equals this rank's.
bool same_on_every_rank(Team& team, std::uint64_t hash) {
  const auto all = team.all_gather(std::as_bytes(std::span(&hash, 1)));
  for (int r = 0; r < team.world(); ++r) {
    std::uint64_t theirs = 0;
    std::memcpy(&theirs, all.data() + r * sizeof(theirs), sizeof(theirs));
    if (theirs != hash) return false;
  }
  return true;
}

template <class T>
void check_deterministic_factories(Heap& heap, cudaStream_t stream, const std::string& name) {
  HeapScope scope(heap);
  const auto zeros_host = to_host(zeros<T>(heap, {kCount}, stream), stream);
  const auto ones_host = to_host(ones<T>(heap, {7, 5}, stream), stream);
  const auto full_host = to_host(full<T>(heap, {3, 3}, T(-3.0f), stream), stream);
  const auto arange_host = to_host(arange<T>(heap, 0, 100, 1, stream), stream);
  const auto linspace_host = to_host(linspace<T>(heap, -10, 10, 21, stream), stream);
  const auto empty_host = to_host(empty<T>(heap, {17}, stream), stream);
  for (T v : zeros_host) require(as_double(v) == 0.0, name + " zeros");
  for (T v : ones_host) require(as_double(v) == 1.0, name + " ones");
  for (T v : full_host) require(as_double(v) == -3.0, name + " full(-3)");
  require(arange_host.size() == 100, name + " arange length");
  for (std::size_t i = 0; i < arange_host.size(); ++i) {
    require(as_double(arange_host[i]) == static_cast<double>(i), name + " arange value");
  }
  require(linspace_host.size() == 21, name + " linspace length");
  for (std::size_t i = 0; i < linspace_host.size(); ++i) {
    require(as_double(linspace_host[i]) == -10.0 + static_cast<double>(i), name + " linspace value");
  }
  for (T v : empty_host) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    for (unsigned char b : bytes) require(b == 0xFF, name + " empty() is poisoned");
  }
  const Tensor<T> like = zeros_like(heap, arange<T>(heap, 0, 6, 1, stream), stream);
  require(like.shape == Shape{6}, name + " zeros_like shape");
}

template <class T>
void check_random_factories(Team& team, Heap& heap, cudaStream_t stream, const std::string& name) {
  HeapScope scope(heap);
  constexpr std::uint64_t kSeed = 0x5eed;
  std::vector<T> first, other_seed;
  if constexpr (is_floating_element_v<T>) {
    first = to_host(rand<T>(heap, {kCount}, kSeed, stream, -1.0, 1.0), stream);
    other_seed = to_host(rand<T>(heap, {kCount}, kSeed + 1, stream, -1.0, 1.0), stream);
    for (std::int64_t i = 0; i < kCount; ++i) {
      const T expected = random::uniform_element<T>(kSeed, i, -1.0, 1.0);
      require(std::memcmp(&first[i], &expected, sizeof(T)) == 0,
              name + " rand element " + std::to_string(i) + " differs from the host generator");
    }
    const auto normal = to_host(randn<T>(heap, {kCount}, kSeed, stream, 2.0, 3.0), stream);
    double sum = 0, square_sum = 0;
    for (T v : normal) {
      const double x = as_double(v);
      require(std::isfinite(x), name + " randn is finite");
      sum += x;
      square_sum += x * x;
    }
    const double mean = sum / kCount;
    const double stddev = std::sqrt(square_sum / kCount - mean * mean);
    require(std::abs(mean - 2.0) < 0.05 && std::abs(stddev - 3.0) < 0.05,
            name + " randn(mean 2, stddev 3) has mean " + std::to_string(mean) + ", stddev " +
                std::to_string(stddev));
    require(same_on_every_rank(team, fnv1a(normal)), name + " randn differs between ranks");
  } else {
    first = to_host(randint<T>(heap, {kCount}, -100, 100, kSeed, stream), stream);
    other_seed = to_host(randint<T>(heap, {kCount}, -100, 100, kSeed + 1, stream), stream);
    for (std::int64_t i = 0; i < kCount; ++i) {
      require(first[i] == random::randint_element<T>(kSeed, i, -100, 200),
              name + " randint element " + std::to_string(i) + " differs from the host generator");
    }
  }
  require(same_on_every_rank(team, fnv1a(first)), name + " random tensor differs between ranks");
  require(fnv1a(first) != fnv1a(other_seed), name + " seeds " + std::to_string(kSeed) + " and " +
                                                  std::to_string(kSeed + 1) + " give one tensor");
}

void check_every_dtype(Team& team) {
  RuntimeOptions options;
  options.heap_size = std::size_t{256} << 20;
  Runtime rt(team, options);
  cudaStream_t stream = nullptr;
  SYMM_CUDA_CHECK(cudaStreamCreate(&stream));
  for (DType type : kAllDTypes) {
    dispatch_dtype(type, [&]<class T>() {
      const std::string name(dtype_name(type));
      check_deterministic_factories<T>(rt.heap(), stream, name);
      check_random_factories<T>(team, rt.heap(), stream, name);
    });
  }
  require(rt.heap().allocator().live_allocations() == 0, "HeapScope released every tensor");
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(SYMM_SUITE(TensorFactories), EveryDTypeOnTwoRanks) {
  SYMM_REQUIRE_GPUS(SYMM_TEST_GPUS);
  EXPECT_EQ(run_on_ranks(2, check_every_dtype), 0);
}

}  // namespace
}  // namespace symm::testing
