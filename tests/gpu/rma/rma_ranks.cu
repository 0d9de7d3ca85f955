// Data movement between ranks, checked byte for byte: element load/store/get/put/copy
// for every size and cache hint (masks included), then cooperative ranges and tiles
// with ragged edges and misaligned starts, by a warp and by a block. Destinations are
// poisoned first, so an element never written cannot pass, and the poison around a
// window must survive (nothing outside it is written).
#include <cooperative_groups.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "harness.hpp"
#include "rank_bodies.hpp"
#include "symm/device/rma.cuh"
#include "symm/device/tile.cuh"
#include "symm/host/cuda_check.hpp"
#include "type_lists.cuh"

namespace symm::test {
namespace {

using device::Context;
using device::LoadCache;
using device::StoreCache;
using device::Vec16;

constexpr std::size_t kBufferBytes = 64 << 10;
constexpr std::uint8_t kPoison = 0xA5;

// The byte at `offset` of rank `rank`'s source buffer.
std::uint8_t pattern_byte(int rank, std::size_t offset) {
  std::uint32_t x = static_cast<std::uint32_t>(offset) * 2654435761u ^ (rank + 1) * 0x9E3779B9u;
  x ^= x >> 15;
  return static_cast<std::uint8_t>(x * 0x2C1B3C6Du >> 24);
}

enum class Move { load, store, get, put, copy };

constexpr LoadCache kLoadHints[] = {LoadCache::normal, LoadCache::l2_only, LoadCache::streaming,
                                    LoadCache::refetch, LoadCache::volatile_};
constexpr StoreCache kStoreHints[] = {StoreCache::normal, StoreCache::l2_only,
                                      StoreCache::streaming, StoreCache::write_through};

template <Move move, LoadCache LC, StoreCache SC, class T>
__global__ void move_elements(Context ctx, T* dst, const T* src, int n, int peer, int other) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  using namespace device;
  if constexpr (move == Move::load) dst[i] = load<LC>(ctx, &src[i], peer);
  if constexpr (move == Move::store) store<SC>(ctx, &dst[i], peer, src[i]);
  if constexpr (move == Move::get) get<LC, SC>(ctx, &dst[i], &src[i], peer);
  if constexpr (move == Move::put) put<LC, SC>(ctx, &dst[i], &src[i], peer);
  if constexpr (move == Move::copy) copy<LC, SC>(ctx, &dst[i], peer, &src[i], other);
}

// Odd elements are masked off: loads give `other` (0), stores write nothing.
__global__ void move_masked(Context ctx, std::uint32_t* dst, const std::uint32_t* src, int n,
                            int peer, bool use_store) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (use_store) {
    device::store(ctx, &dst[i], peer, src[i], i % 2 == 0);
  } else {
    dst[i] = device::load(ctx, &src[i], peer, i % 2 == 0, 0u);
  }
}

template <bool Warp, bool Put, class T>
__global__ void move_tile(Context ctx, T* dst, std::int64_t ld_dst, const T* src,
                          std::int64_t ld_src, std::int64_t rows, std::int64_t cols, int peer,
                          bool as_range) {
  namespace cg = cooperative_groups;
  const auto run = [&](const auto& group) {
    if (as_range) {
      if constexpr (Put) device::put_range(group, ctx, dst, src, cols, peer);
      else device::get_range(group, ctx, dst, src, cols, peer);
    } else {
      if constexpr (Put) device::put_tile(group, ctx, dst, ld_dst, src, ld_src, rows, cols, peer);
      else device::get_tile(group, ctx, dst, ld_dst, src, ld_src, rows, cols, peer);
    }
  };
  if constexpr (Warp) {
    if (threadIdx.x < 32) run(cg::tiled_partition<32>(cg::this_thread_block()));
  } else {
    run(cg::this_thread_block());
  }
}

// This rank's source and destination buffers on the heap, and the host copies.
struct Buffers {
  std::uint8_t* src;
  std::uint8_t* dst;
  std::vector<std::uint8_t> expected;  // what dst must hold after the move

  // Fills src with this rank's pattern and dst (and `expected`) with poison.
  void reset(Runtime& rt, cudaStream_t stream) {
    std::vector<std::uint8_t> pattern(kBufferBytes);
    for (std::size_t o = 0; o < kBufferBytes; ++o) pattern[o] = pattern_byte(rt.rank(), o);
    SYMM_CUDA_CHECK(cudaMemcpyAsync(src, pattern.data(), kBufferBytes, cudaMemcpyHostToDevice, stream));
    SYMM_CUDA_CHECK(cudaMemsetAsync(dst, kPoison, kBufferBytes, stream));
    expected.assign(kBufferBytes, kPoison);
    rt.barrier(stream);
  }

  // Expects dst bytes [dst_at, +bytes) to come from rank `from`'s src at src_at.
  void expect_from(int from, std::size_t dst_at, std::size_t src_at, std::size_t bytes) {
    for (std::size_t b = 0; b < bytes; ++b) expected[dst_at + b] = pattern_byte(from, src_at + b);
  }

  void check(Runtime& rt, cudaStream_t stream, Failures& failures, const std::string& what) {
    rt.barrier(stream);  // every rank's move is done
    std::vector<std::uint8_t> seen(kBufferBytes);
    SYMM_CUDA_CHECK(cudaMemcpyAsync(seen.data(), dst, kBufferBytes, cudaMemcpyDeviceToHost, stream));
    SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::size_t first_bad = kBufferBytes;
    for (std::size_t o = 0; o < kBufferBytes && first_bad == kBufferBytes; ++o) {
      if (seen[o] != expected[o]) first_bad = o;
    }
    failures.check(first_bad == kBufferBytes,
                   what + ": destination byte " + std::to_string(first_bad) + " differs");
    rt.barrier(stream);  // nobody resets before everyone checked
  }
};

template <class T, Move move, LoadCache LC, StoreCache SC>
void element_case(Runtime& rt, Buffers& b, cudaStream_t stream, Failures& failures) {
  const int w = rt.world(), me = rt.rank();
  const int peer = (me + 1) % w, other = (me + w - 1) % w;
  const int n = static_cast<int>(kBufferBytes / sizeof(T));
  b.reset(rt, stream);
  move_elements<move, LC, SC><<<(n + 255) / 256, 256, 0, stream>>>(
      rt.context(), reinterpret_cast<T*>(b.dst), reinterpret_cast<const T*>(b.src), n, peer, other);
  SYMM_CUDA_CHECK(cudaGetLastError());
  // Who wrote my dst, with whose data: loads/gets bring the peer's data here; stores
  // and puts arrive from the previous rank; a copy run by rank r takes rank r-1's data
  // to rank r+1, so mine comes from rank me-2.
  const int from = move == Move::load || move == Move::get ? peer
                   : move == Move::copy                    ? (me + 2 * w - 2) % w
                                                           : other;
  b.expect_from(from, 0, 0, kBufferBytes);
  b.check(rt, stream, failures,
          "element move " + std::to_string(static_cast<int>(move)) + " of " +
              std::to_string(sizeof(T)) + "-byte elements, load hint " +
              std::to_string(static_cast<int>(LC)) + ", store hint " +
              std::to_string(static_cast<int>(SC)));
}

template <class T>
void element_cases(Runtime& rt, Buffers& b, cudaStream_t stream, Failures& failures) {
  for_each_value<kLoadHints>([&]<LoadCache LC>() {
    element_case<T, Move::load, LC, StoreCache::normal>(rt, b, stream, failures);
    element_case<T, Move::get, LC, StoreCache::normal>(rt, b, stream, failures);
  });
  for_each_value<kStoreHints>([&]<StoreCache SC>() {
    element_case<T, Move::store, LoadCache::normal, SC>(rt, b, stream, failures);
    element_case<T, Move::put, LoadCache::normal, SC>(rt, b, stream, failures);
  });
  element_case<T, Move::copy, LoadCache::normal, StoreCache::normal>(rt, b, stream, failures);
  element_case<T, Move::copy, LoadCache::refetch, StoreCache::write_through>(rt, b, stream, failures);
}

void masked_cases(Runtime& rt, Buffers& b, cudaStream_t stream, Failures& failures) {
  const int w = rt.world(), me = rt.rank();
  const int n = static_cast<int>(kBufferBytes / 4);
  for (const bool use_store : {false, true}) {
    b.reset(rt, stream);
    move_masked<<<(n + 255) / 256, 256, 0, stream>>>(
        rt.context(), reinterpret_cast<std::uint32_t*>(b.dst),
        reinterpret_cast<const std::uint32_t*>(b.src), n, (me + 1) % w, use_store);
    SYMM_CUDA_CHECK(cudaGetLastError());
    const int from = use_store ? (me + w - 1) % w : (me + 1) % w;
    for (int i = 0; i < n; i += 2) b.expect_from(from, 4 * i, 4 * i, 4);
    if (!use_store) {
      for (int i = 1; i < n; i += 2) std::memset(&b.expected[4 * i], 0, 4);  // `other`
    }
    b.check(rt, stream, failures, use_store ? "masked store" : "masked load");
  }
}

struct TileShape {
  std::int64_t rows, cols, ld_dst, ld_src, dst_at, src_at;  // in elements
};

template <class T, bool Warp, bool Put>
void tile_case(Runtime& rt, Buffers& b, cudaStream_t stream, Failures& failures,
               const TileShape& s, bool as_range) {
  const int w = rt.world(), me = rt.rank();
  b.reset(rt, stream);
  move_tile<Warp, Put><<<1, 256, 0, stream>>>(
      rt.context(), reinterpret_cast<T*>(b.dst) + s.dst_at, s.ld_dst,
      reinterpret_cast<const T*>(b.src) + s.src_at, s.ld_src, s.rows, s.cols,
      (me + 1) % w, as_range);
  SYMM_CUDA_CHECK(cudaGetLastError());
  const int from = Put ? (me + w - 1) % w : (me + 1) % w;
  for (std::int64_t r = 0; r < s.rows; ++r) {
    b.expect_from(from, sizeof(T) * (s.dst_at + r * s.ld_dst), sizeof(T) * (s.src_at + r * s.ld_src),
                  sizeof(T) * s.cols);
  }
  b.check(rt, stream, failures,
          std::string(as_range ? "range" : "tile") + (Put ? " put" : " get") + " by a " +
              (Warp ? "warp" : "block") + " of " + std::to_string(sizeof(T)) + "-byte elements, " +
              std::to_string(s.rows) + "x" + std::to_string(s.cols) + " ld " +
              std::to_string(s.ld_dst) + "/" + std::to_string(s.ld_src) + " at " +
              std::to_string(s.dst_at) + "/" + std::to_string(s.src_at));
}

template <class T>
void tile_cases(Runtime& rt, Buffers& b, cudaStream_t stream, Failures& failures) {
  // Ranges (rows = 1): ragged counts, aligned and misaligned starts, equal or not.
  for (const std::int64_t count : {1, 7, 33, 1000, 4101}) {
    constexpr std::pair<int, int> starts[] = {{0, 0}, {1, 1}, {3, 3}, {0, 2}};  // dst, src
    for (const auto& [dst_at, src_at] : starts) {
      const TileShape s{1, count, count, count, dst_at, src_at};
      tile_case<T, false, true>(rt, b, stream, failures, s, true);
      tile_case<T, true, false>(rt, b, stream, failures, s, true);
    }
  }
  // Tiles: aligned pitches, ragged edges, odd pitches, an odd start.
  const std::int64_t e = 16 / sizeof(T);  // elements per 16 bytes
  for (const TileShape& s : {TileShape{16, 8 * e, 16 * e, 8 * e, 0, 0},
                             TileShape{13, 5 * e + 3, 9 * e, 7 * e, 0, 0},
                             TileShape{7, 21, 37, 23, 0, 0},
                             TileShape{9, 4 * e, 8 * e, 8 * e, 1, 1}}) {
    tile_case<T, false, true>(rt, b, stream, failures, s, false);
    tile_case<T, true, true>(rt, b, stream, failures, s, false);
    tile_case<T, false, false>(rt, b, stream, failures, s, false);
  }
}

}  // namespace

int rma_rank_body(Runtime& rt) {
  Failures failures("rma");
  cudaStream_t stream;
  SYMM_CUDA_CHECK(cudaStreamCreate(&stream));
  Buffers b{static_cast<std::uint8_t*>(rt.heap().allocate(kBufferBytes)),
            static_cast<std::uint8_t*>(rt.heap().allocate(kBufferBytes)), {}};
  for_each_type<TypeList<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, Vec16<std::uint32_t>>>(
      [&]<class T>() { element_cases<T>(rt, b, stream, failures); });
  masked_cases(rt, b, stream, failures);
  for_each_type<TypeList<std::uint8_t, __nv_bfloat16, float, double>>(
      [&]<class T>() { tile_cases<T>(rt, b, stream, failures); });
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
  return failures.exit_code();
}

}  // namespace symm::test
