#pragma once
// Splitting a long transfer among the blocks of a grid (device code of the examples).
#include <cstdint>

namespace symm::examples {

// Calls move(begin, end) for each tile of `tile` items that this block takes in a
// grid-stride walk over [0, count): block b takes tiles b, b + gridDim.x, ... So the
// grid works on neighbouring tiles at any moment: the pages in flight on the peer stay
// few (a contiguous share per block would touch a page per block at once, and the
// peer's address translation would slow large transfers down) and every block stays
// busy to the end. Tiles start at multiples of `tile` (keep it whole 16-byte vectors).
template <class Move>
__device__ void for_each_tile(std::int64_t count, std::int64_t tile, Move&& move) {
  for (std::int64_t begin = blockIdx.x * tile; begin < count; begin += gridDim.x * tile) {
    move(begin, begin + tile < count ? begin + tile : count);
  }
}

// Words (8 bytes) per tile for moving `words` words: 4 16-byte vectors per thread (what
// device::copy_range keeps in flight), or less, so that a small transfer still spreads
// over every block; always whole 16-byte vectors.
__device__ inline std::int64_t words_per_tile(std::int64_t words) {
  const std::int64_t full = 8 * static_cast<std::int64_t>(blockDim.x);
  const std::int64_t spread = (words + gridDim.x - 1) / gridDim.x;
  const std::int64_t tile = spread < full ? spread : full;
  return tile + tile % 2;
}

}  // namespace symm::examples
