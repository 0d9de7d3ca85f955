#include "pattern.hpp"

#include "symm/host/cuda_check.hpp"

namespace symm::examples {
namespace {

// Word i of rank `source`'s pattern; bit 31 is clear, so the all-ones poison never
// matches.
__device__ std::uint32_t pattern_word(std::uint64_t i, int source) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(source + 1) * 0xD1B54A32D192ED03ull;
  x ^= x >> 29;
  return static_cast<std::uint32_t>(x * 0xBF58476D1CE4E5B9ull >> 33);
}

__global__ void fill_kernel(std::uint32_t* data, std::uint64_t words, int source) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < words;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    data[i] = pattern_word(i, source);
  }
}

// Counts words i where data[i] != expected(i).
template <class Expected>
__global__ void compare_kernel(const std::uint32_t* data, std::uint64_t words, Expected expected,
                               unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < words;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    if (data[i] != expected(i)) ++mine;
  }
  if (mine) atomicAdd(wrong, mine);
}

struct PatternOf {
  int source;
  __device__ std::uint32_t operator()(std::uint64_t i) const { return pattern_word(i, source); }
};

struct Constant {
  std::uint32_t value;
  __device__ std::uint32_t operator()(std::uint64_t) const { return value; }
};

template <class Expected>
std::uint64_t count_wrong(const void* data, std::uint64_t words, Expected expected,
                          cudaStream_t stream) {
  unsigned long long* wrong = nullptr;
  SYMM_CUDA_CHECK(cudaMallocAsync(&wrong, sizeof(*wrong), stream));
  SYMM_CUDA_CHECK(cudaMemsetAsync(wrong, 0, sizeof(*wrong), stream));
  compare_kernel<<<264, 256, 0, stream>>>(static_cast<const std::uint32_t*>(data), words, expected,
                                          wrong);
  SYMM_CUDA_CHECK(cudaGetLastError());
  unsigned long long result = 0;
  SYMM_CUDA_CHECK(cudaMemcpyAsync(&result, wrong, sizeof(result), cudaMemcpyDeviceToHost, stream));
  SYMM_CUDA_CHECK(cudaFreeAsync(wrong, stream));
  SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return result;
}

}  // namespace

void fill_pattern(void* data, std::uint64_t bytes, int source, cudaStream_t stream) {
  fill_kernel<<<264, 256, 0, stream>>>(static_cast<std::uint32_t*>(data), bytes / 4, source);
  SYMM_CUDA_CHECK(cudaGetLastError());
}

void poison(void* data, std::uint64_t bytes, cudaStream_t stream) {
  SYMM_CUDA_CHECK(cudaMemsetAsync(data, 0xFF, bytes, stream));
}

std::uint64_t count_mismatches(const void* data, std::uint64_t bytes, int source,
                               cudaStream_t stream) {
  return count_wrong(data, bytes / 4, PatternOf{source}, stream);
}

std::uint64_t count_words_not_equal(const void* data, std::uint64_t words, std::uint32_t value,
                                    cudaStream_t stream) {
  return count_wrong(data, words, Constant{value}, stream);
}

}  // namespace symm::examples
