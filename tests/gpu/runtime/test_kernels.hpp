#pragma once
// Kernels of the runtime's GPU tests. They take the Runtime and build the
// device::Context themselves, so the tests stay host code.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "symm/common/tensor.hpp"  // SYMM_HOST_DEVICE
#include "symm/host/runtime.hpp"

namespace symm::testing {

// The value writer `writer` puts at index i of its slot in rank `target`'s heap: every
// (writer, target, index) gives a different, non-zero word, so a misdirected, missing
// or torn write cannot pass.
SYMM_HOST_DEVICE std::uint32_t pattern(int writer, int target, std::uint64_t index) {
  std::uint64_t x = (static_cast<std::uint64_t>(writer) << 48) ^
                    (static_cast<std::uint64_t>(target) << 40) ^ index;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return static_cast<std::uint32_t>(x) | 1u;
}

// For every peer p (this rank included), writes pattern(rank, p, i) for i < count at
// slots + rank * count translated into p's heap (Context::translate). `slots` is a heap
// allocation of world * count words.
void write_pattern_to_every_peer(const Runtime& runtime, std::uint32_t* slots, std::size_t count,
                                 cudaStream_t stream);

// What a kernel sees in runtime.context(), written to `out` (device memory of
// 3 + world words): rank, world, heap_size, then bases[0..world).
void copy_context_on_device(const Runtime& runtime, std::uint64_t* out, cudaStream_t stream);

// A kernel of known duration: one thread spins on the global timer for `ns` nanoseconds.
void spin_for(std::uint64_t ns, cudaStream_t stream);

// A dependent chain of `hops` loads that bypass L1 (ld.global.cg): each word of `links`
// reached holds the index of the next word; the index the chain ends at goes to *end.
// Its time is the L2 or memory latency of every hop, so it shows whether L2 was flushed.
void chase_links(const std::uint32_t* links, int hops, std::uint32_t* end, cudaStream_t stream);

}  // namespace symm::testing
