// The operand copies of operand_copies.hpp: rows of bytes between two pitches, in the
// widest loads and stores that every address and length allows (16 bytes for the
// straddling rows, which are 16-byte aligned; 2 bytes at worst). cudaMemcpy2DAsync moved
// these rows at about half the bandwidth (2026-12-01, K = 4104 on one H200).
#include <cuda_runtime.h>

#include <cstdint>

#include "launch.hpp"
#include "symm/host/cuda_check.hpp"

namespace symm::gemm::detail {
namespace {

template <class V>
__global__ void copy_rows_kernel(std::uint8_t* dst, std::int64_t dst_pitch, const std::uint8_t* src,
                                 std::int64_t src_pitch, std::int64_t row_units, std::int64_t rows) {
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const V* from = reinterpret_cast<const V*>(src + r * src_pitch);
    V* to = reinterpret_cast<V*>(dst + r * dst_pitch);
    for (std::int64_t i = threadIdx.x; i < row_units; i += blockDim.x) to[i] = __ldcs(&from[i]);
  }
}

template <class V>
void launch_copy(void* dst, std::int64_t dst_pitch, const void* src, std::int64_t src_pitch,
                 std::int64_t row_bytes, std::int64_t rows, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const int blocks = int(rows < 65535 ? rows : 65535);
  copy_rows_kernel<V><<<blocks, kThreads, 0, stream>>>(static_cast<std::uint8_t*>(dst), dst_pitch,
                                                       static_cast<const std::uint8_t*>(src), src_pitch,
                                                       row_bytes / std::int64_t(sizeof(V)), rows);
  check_cuda(cudaGetLastError(), "launch of the GEMM's operand copy");
}

}  // namespace

void copy_rows(void* dst, std::int64_t dst_pitch, const void* src, std::int64_t src_pitch,
               std::int64_t row_bytes, std::int64_t rows, cudaStream_t stream) {
  const auto all = reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src) |
                   std::uintptr_t(dst_pitch) | std::uintptr_t(src_pitch) | std::uintptr_t(row_bytes);
  if (all % 16 == 0)
    launch_copy<uint4>(dst, dst_pitch, src, src_pitch, row_bytes, rows, stream);
  else if (all % 8 == 0)
    launch_copy<uint2>(dst, dst_pitch, src, src_pitch, row_bytes, rows, stream);
  else if (all % 4 == 0)
    launch_copy<std::uint32_t>(dst, dst_pitch, src, src_pitch, row_bytes, rows, stream);
  else
    launch_copy<std::uint16_t>(dst, dst_pitch, src, src_pitch, row_bytes, rows, stream);
}

}  // namespace symm::gemm::detail
