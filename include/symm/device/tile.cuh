#pragma once
// Cooperative data movement: a group of threads (a warp, a block, any cooperative
// group) moves a contiguous range or a 2-D row-major tile between this rank and any
// rank's heap. Every thread of the group calls with the same arguments.
//
//   auto block = cooperative_groups::this_thread_block();
//   put_range(block, ctx, remote_buf, my_buf, count, peer);             // 1-D
//   put_tile(block, ctx, c, ldc, my_tile, BLK_N, rows, cols, peer);     // 2-D, ragged ok
//
// Where the addresses allow it, the body moves 16-byte vectors (ld/st.global.v4) with
// several loads in flight per thread; ragged ends (a count or row width that is not a
// multiple of 16 bytes, a misaligned start) move element by element. Nothing outside
// [0, rows) x [0, cols) is read or written. Accesses are weak: order them with a flag
// or a barrier, after the group has met at a group barrier.
#include <concepts>
#include <cstdint>
#include <type_traits>

#include "symm/device/rma.cuh"

namespace symm::device {

// What tile.cuh needs of a group: cooperative_groups::thread_block and
// thread_block_tile<N> have both.
template <class G>
concept ThreadGroup = requires(const G& g) {
  { g.thread_rank() } -> std::convertible_to<unsigned long long>;
  { g.num_threads() } -> std::convertible_to<unsigned long long>;
};

namespace detail {

// Vectors each thread loads before it stores, to keep peer-memory latency hidden.
inline constexpr int kVectorsInFlight = 4;

__device__ __forceinline__ bool aligned16(const void* address) {
  return reinterpret_cast<std::uintptr_t>(address) % 16 == 0;
}

// Unit i of a contiguous range sits at offset i on both sides.
struct Contiguous {
  __device__ __forceinline__ std::int64_t dst(std::int64_t i) const { return i; }
  __device__ __forceinline__ std::int64_t src(std::int64_t i) const { return i; }
};

// Unit i of a row-major tile `width` units wide is column i % width of row i / width;
// rows are dst_pitch and src_pitch units apart.
struct RowMajor {
  std::int64_t width, dst_pitch, src_pitch;
  __device__ __forceinline__ std::int64_t dst(std::int64_t i) const {
    return i / width * dst_pitch + i % width;
  }
  __device__ __forceinline__ std::int64_t src(std::int64_t i) const {
    return i / width * src_pitch + i % width;
  }
};

// Moves `count` units (elements or 16-byte vectors) placed by `layout`; each thread
// issues InFlight loads before its stores.
template <LoadCache LC, StoreCache SC, int InFlight, ThreadGroup Group, Movable U, class Layout>
__device__ __forceinline__ void move_units(const Group& g, U* dst, const U* src,
                                           const Layout& layout, std::int64_t count) {
  const std::int64_t threads = g.num_threads();
  for (std::int64_t first = g.thread_rank(); first < count; first += threads * InFlight) {
    U staged[InFlight];
#pragma unroll
    for (int k = 0; k < InFlight; ++k) {
      const std::int64_t i = first + k * threads;
      if (i < count) staged[k] = ld<LC>(src + layout.src(i));
    }
#pragma unroll
    for (int k = 0; k < InFlight; ++k) {
      const std::int64_t i = first + k * threads;
      if (i < count) st<SC>(dst + layout.dst(i), staged[k]);
    }
  }
}

// Moves a rows x cols tile (rows == 1: a range): 16-byte vectors where both sides
// allow them, then the ragged right edge element by element.
template <LoadCache LC, StoreCache SC, ThreadGroup Group, Movable T>
__device__ __forceinline__ void move_tile(const Group& g, T* dst, std::int64_t ld_dst,
                                          const T* src, std::int64_t ld_src, std::int64_t rows,
                                          std::int64_t cols) {
  constexpr int per_vector = 16 / sizeof(T);
  std::int64_t vector_cols = 0;
  if constexpr (per_vector > 1) {
    const bool pitches_aligned =
        rows == 1 || (ld_dst % per_vector == 0 && ld_src % per_vector == 0);
    if (pitches_aligned && aligned16(dst) && aligned16(src)) {
      vector_cols = cols / per_vector * per_vector;
    }
  }
  const auto move = [&](auto* d, const auto* s, std::int64_t width, std::int64_t scale,
                        auto in_flight) {
    constexpr int k = decltype(in_flight)::value;
    if (rows == 1) {
      move_units<LC, SC, k>(g, d, s, Contiguous{}, width);
    } else {
      move_units<LC, SC, k>(g, d, s, RowMajor{width, ld_dst / scale, ld_src / scale},
                            rows * width);
    }
  };
  if (vector_cols > 0) {
    move(reinterpret_cast<uint4*>(dst), reinterpret_cast<const uint4*>(src),
         vector_cols / per_vector, per_vector,
         std::integral_constant<int, kVectorsInFlight>{});
  }
  if (cols > vector_cols) {
    move(dst + vector_cols, src + vector_cols, cols - vector_cols, 1,
         std::integral_constant<int, 1>{});
  }
}

}  // namespace detail

// Copies a rows x cols tile between two global addresses (already translated): row r
// of dst starts at dst + r * ld_dst, row r of src at src + r * ld_src (in elements).
template <LoadCache LC = LoadCache::normal, StoreCache SC = StoreCache::normal,
          ThreadGroup Group, Movable T>
__device__ void copy_tile(const Group& g, T* dst, std::int64_t ld_dst, const T* src,
                          std::int64_t ld_src, std::int64_t rows, std::int64_t cols) {
  detail::move_tile<LC, SC>(g, dst, ld_dst, src, ld_src, rows, cols);
}

// Copies count contiguous elements; a start that is equally misaligned on both sides
// is peeled so the body still moves 16-byte vectors.
template <LoadCache LC = LoadCache::normal, StoreCache SC = StoreCache::normal,
          ThreadGroup Group, Movable T>
__device__ void copy_range(const Group& g, T* dst, const T* src, std::int64_t count) {
  const auto misalignment = reinterpret_cast<std::uintptr_t>(src) % 16;
  std::int64_t head = 0;
  if (misalignment == reinterpret_cast<std::uintptr_t>(dst) % 16 && misalignment != 0 &&
      misalignment % sizeof(T) == 0) {
    head = (16 - misalignment) / sizeof(T);
    head = head < count ? head : count;
    detail::move_tile<LC, SC>(g, dst, head, src, head, 1, head);
  }
  detail::move_tile<LC, SC>(g, dst + head, 0, src + head, 0, 1, count - head);
}

// Bytes a range of `count` elements, or a tile of rows x cols elements `ld` apart,
// reaches from its first element: what a peer's address is checked for (debug builds).
template <class T>
__device__ __forceinline__ std::uint64_t range_bytes(std::int64_t count) {
  return count > 0 ? std::uint64_t(count) * sizeof(T) : 0;
}
template <class T>
__device__ __forceinline__ std::uint64_t tile_bytes(std::int64_t ld, std::int64_t rows, std::int64_t cols) {
  return rows > 0 && cols > 0 ? range_bytes<T>((rows - 1) * ld + cols) : 0;
}

// Rank `peer`'s copy of dst_local[0, count) = src[0, count) (this rank's memory).
template <LoadCache LC = LoadCache::normal, StoreCache SC = StoreCache::normal,
          ThreadGroup Group, Movable T>
__device__ void put_range(const Group& g, const Context& ctx, T* dst_local, const T* src,
                          std::int64_t count, int peer) {
  copy_range<LC, SC>(g, ctx.translate(dst_local, peer, range_bytes<T>(count)), src, count);
}

// dst[0, count) (this rank's memory) = rank `peer`'s copy of src_local[0, count).
template <LoadCache LC = LoadCache::normal, StoreCache SC = StoreCache::normal,
          ThreadGroup Group, Movable T>
__device__ void get_range(const Group& g, const Context& ctx, T* dst, const T* src_local,
                          std::int64_t count, int peer) {
  copy_range<LC, SC>(g, dst, ctx.translate(src_local, peer, range_bytes<T>(count)), count);
}

// Rank `peer`'s copy of the tile at dst_local = the tile at src (this rank's memory).
template <LoadCache LC = LoadCache::normal, StoreCache SC = StoreCache::normal,
          ThreadGroup Group, Movable T>
__device__ void put_tile(const Group& g, const Context& ctx, T* dst_local, std::int64_t ld_dst,
                         const T* src, std::int64_t ld_src, std::int64_t rows,
                         std::int64_t cols, int peer) {
  copy_tile<LC, SC>(g, ctx.translate(dst_local, peer, tile_bytes<T>(ld_dst, rows, cols)), ld_dst, src, ld_src,
                    rows, cols);
}

// The tile at dst (this rank's memory) = rank `peer`'s copy of the tile at src_local.
template <LoadCache LC = LoadCache::normal, StoreCache SC = StoreCache::normal,
          ThreadGroup Group, Movable T>
__device__ void get_tile(const Group& g, const Context& ctx, T* dst, std::int64_t ld_dst,
                         const T* src_local, std::int64_t ld_src, std::int64_t rows,
                         std::int64_t cols, int peer) {
  copy_tile<LC, SC>(g, dst, ld_dst, ctx.translate(src_local, peer, tile_bytes<T>(ld_src, rows, cols)), ld_src,
                    rows, cols);
}

}  // namespace symm::device
