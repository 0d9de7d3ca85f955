#pragma once
// Splitting work among the blocks of a grid (device code of the examples).
#include <cstdint>

namespace symm::examples {

struct Share {
  std::int64_t begin, end;  // [begin, end)
};

// Block `block` of `blocks`'s contiguous share of `count` items, in whole granules
// (e.g. 2 eight-byte words, so every share starts 16-byte aligned).
__device__ inline Share block_share(std::int64_t count, int blocks, int block, int granule = 1) {
  const std::int64_t granules = (count + granule - 1) / granule;
  const std::int64_t per_block = (granules + blocks - 1) / blocks;
  const std::int64_t begin = static_cast<std::int64_t>(block) * per_block * granule;
  const std::int64_t end = begin + per_block * granule;
  return {begin < count ? begin : count, end < count ? end : count};
}

}  // namespace symm::examples
