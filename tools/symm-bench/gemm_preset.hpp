#pragma once
// Preset files of `symm-bench gemm` (bench/gemm/*.json), read and checked before any GPU
// work: every mistake is a symm::Error naming the file and the key.
//
//   {"description": "...", "square": [[M, N, K], ...],
//    "sharded": {"worlds": [1, 2, 8], "shapes": [[M, N, K], ...]}, "fewer_sms": [16, 32]}
#include <cstdint>
#include <string>
#include <vector>

namespace symm::bench {

struct GemmShape {
  std::int64_t m, n, k;
  int world;  // n is the per-rank shard N / world (1: the whole matrix)
};

struct GemmPreset {
  std::vector<GemmShape> shapes;  // square ones as given, sharded ones as (M, N / world, K)
  std::vector<int> fewer_sms;     // also time ours on SMs - s blocks, for each s
};

// Parses `text` (the contents of `path`, named in errors). Unknown keys, shapes that are
// not three integers >= 1, worlds < 1, fewer_sms < 1, a world that does not divide a
// sharded shape's N, and repeats (a problem, a world, a fewer_sms value given twice) are
// refused.
GemmPreset parse_gemm_preset(const std::string& text, const std::string& path);
GemmPreset load_gemm_preset(const std::string& path);

// Device memory one problem holds while measured, about: A, B and C of `element_bytes`,
// the fp32 reference C, and kBenchReserveBytes for the GEMMs' workspaces (split-K partials,
// cuBLASLt's workspace). Saturates: extents up to 2^31 can ask for more than 64 bits.
inline constexpr std::uint64_t kBenchReserveBytes = std::uint64_t{1} << 30;
std::uint64_t device_bytes_needed(const GemmShape& shape, int element_bytes);

}  // namespace symm::bench
