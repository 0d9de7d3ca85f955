// 03_all_store: every rank writes every other rank's heap, all at once.
//
// Rank r copies `size` bytes of its buffer into slot r of each peer's receive buffer
// with put_range; blockIdx.y picks the peer. The figure is the bandwidth each rank
// writes at ((world - 1) * size bytes per rank), the slowest rank's, beside the copy
// engines doing the same (one stream per peer, every direction at once).
//
//   03_all_store -r 2 --validate --benchmark --min_bytes 4KiB --max_bytes 256MiB
#include <cooperative_groups.h>

#include <cstdint>

#include "copy_engine.hpp"
#include "example.hpp"
#include "partition.cuh"
#include "pattern.hpp"
#include "symm/device/tile.cuh"
#include "symm/host/launch.hpp"

namespace {

using namespace symm;
using namespace symm::examples;

// Plane y of the grid writes to peer (rank + 1 + y) % world, into recv slot `rank`.
__global__ void all_store_kernel(device::Context ctx, std::uint64_t* recv, const std::uint64_t* src,
                                 std::int64_t words, std::int64_t slot_words) {
  const int peer = (ctx.rank + 1 + static_cast<int>(blockIdx.y)) % ctx.world;
  std::uint64_t* slot = recv + ctx.rank * slot_words;
  for_each_tile(words, words_per_tile(words), [&](std::int64_t begin, std::int64_t end) {
    device::put_range(cooperative_groups::this_thread_block(), ctx, slot + begin, src + begin,
                      end - begin, peer);
  });
}

void all_store_example(Session& s) {
  Runtime& rt = s.runtime();
  const int world = rt.world();
  const std::uint64_t max = s.options().max_bytes;
  auto* src = static_cast<std::uint64_t*>(rt.heap().allocate(max));
  auto* recv = static_cast<std::uint64_t*>(rt.heap().allocate(world * max));
  std::uint64_t* my_slot = recv + rt.rank() * (max / 8);  // where peers receive my bytes
  fill_pattern(src, max, rt.rank(), s.stream());
  rt.barrier(s.stream());
  CopyEngines copy_engines(s);
  s.compare("all_store", "copy_engine");
  const dim3 grid(std::max(1, s.blocks() / (world - 1)), world - 1);

  for (const std::uint64_t size : s.sizes()) {
    const auto all_store = [&] {
      all_store_kernel<<<grid, s.options().threads, 0, s.stream()>>>(
          rt.context(), recv, src, static_cast<std::int64_t>(size / 8),
          static_cast<std::int64_t>(max / 8));
    };
    if (s.options().validate) {
      poison(recv, world * max, s.stream());
      rt.barrier(s.stream());
      all_store();
      rt.barrier(s.stream());
      for (int peer = 0; peer < world; ++peer) {
        if (peer == rt.rank()) continue;
        s.validated("all_store " + std::to_string(size) + " bytes from rank " + std::to_string(peer),
                    count_mismatches(recv + peer * (max / 8), size, peer, s.stream()));
      }
    }
    if (s.options().benchmark) {
      const CrossRankSummary kernel = s.time(all_store);
      const double bytes = static_cast<double>(world - 1) * size;
      s.record({"all_store", "GB/s", size, kAllRanks, kAllRanks, bytes / kernel.headline_ms / 1e6},
               kernel);
      const CrossRankSummary engine = s.time([&] { copy_engines.put_to_all(my_slot, src, size); });
      s.record({"copy_engine", "GB/s", size, kAllRanks, kAllRanks, bytes / engine.headline_ms / 1e6},
               engine);
    }
  }
}

const Spec kSpec{
    .name = "03_all_store",
    .summary = "every rank writes every other rank's heap at once (put_range), over transfer "
               "sizes, beside the copy engines",
    .heap_bytes = [](int world, std::uint64_t max_bytes) { return (world + 1) * max_bytes; },
};

}  // namespace

int main(int argc, char** argv) { symm::exit_with(symm::examples::run(argc, argv, kSpec, all_store_example)); }
