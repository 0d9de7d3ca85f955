#pragma once
// Bit-exact validation of moved data (and of counters): every rank fills its source with its own pattern
// of 32-bit words; a destination is poisoned first (with a word no pattern contains),
// then compared word by word with the pattern of the rank it came from.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace symm::examples {

// `bytes` (a multiple of 4) at `data` := rank `source`'s pattern.
void fill_pattern(void* data, std::uint64_t bytes, int source, cudaStream_t stream);

// `bytes` at `data` := poison.
void poison(void* data, std::uint64_t bytes, cudaStream_t stream);

// Words at `data` that differ from rank `source`'s pattern; waits for `stream`.
std::uint64_t count_mismatches(const void* data, std::uint64_t bytes, int source,
                               cudaStream_t stream);

// 32-bit words at `data` that differ from `value`; waits for `stream`.
std::uint64_t count_words_not_equal(const void* data, std::uint64_t words, std::uint32_t value,
                                    cudaStream_t stream);

}  // namespace symm::examples
