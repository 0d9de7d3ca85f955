// 02_all_load: every rank reads every other rank's heap, all at once.
//
// Rank r copies `size` bytes from each peer p's buffer into slot p of its own receive
// buffer with get_range; blockIdx.y picks the peer. The figure is the bandwidth each
// rank reads at ((world - 1) * size bytes per rank), the slowest rank's.
//
//   02_all_load -r 2 --validate --benchmark --min_bytes 4KiB --max_bytes 256MiB
#include <cooperative_groups.h>

#include <cstdint>

#include "example.hpp"
#include "partition.cuh"
#include "pattern.hpp"
#include "symm/device/tile.cuh"
#include "symm/host/launch.hpp"

namespace {

using namespace symm;
using namespace symm::examples;

// Plane y of the grid reads peer (rank + 1 + y) % world into recv slot peer.
__global__ void all_load_kernel(device::Context ctx, std::uint64_t* recv, const std::uint64_t* src,
                                std::int64_t words, std::int64_t slot_words) {
  const int peer = (ctx.rank + 1 + static_cast<int>(blockIdx.y)) % ctx.world;
  std::uint64_t* slot = recv + peer * slot_words;
  for_each_tile(words, words_per_tile(words), [&](std::int64_t begin, std::int64_t end) {
    device::get_range(cooperative_groups::this_thread_block(), ctx, slot + begin, src + begin,
                      end - begin, peer);
  });
}

void all_load_example(Session& s) {
  Runtime& rt = s.runtime();
  const int world = rt.world();
  const std::uint64_t max = s.options().max_bytes;
  auto* src = static_cast<std::uint64_t*>(rt.heap().allocate(max));
  auto* recv = static_cast<std::uint64_t*>(rt.heap().allocate(world * max));
  fill_pattern(src, max, rt.rank(), s.stream());
  rt.barrier(s.stream());
  const dim3 grid(std::max(1, s.blocks() / (world - 1)), world - 1);

  for (const std::uint64_t size : s.sizes()) {
    const auto all_load = [&] {
      all_load_kernel<<<grid, s.options().threads, 0, s.stream()>>>(
          rt.context(), recv, src, static_cast<std::int64_t>(size / 8),
          static_cast<std::int64_t>(max / 8));
    };
    if (s.options().validate) {
      poison(recv, world * max, s.stream());
      all_load();
      for (int peer = 0; peer < world; ++peer) {
        if (peer == rt.rank()) continue;
        s.validated("all_load " + std::to_string(size) + " bytes from rank " + std::to_string(peer),
                    count_mismatches(recv + peer * (max / 8), size, peer, s.stream()));
      }
    }
    if (s.options().benchmark) {
      const CrossRankSummary t = s.time(all_load);
      s.record({"all_load", "GB/s", size, kAllRanks, kAllRanks,
                (world - 1) * size / t.headline_ms / 1e6},
               t);
    }
  }
}

const Spec kSpec{
    .name = "02_all_load",
    .summary = "every rank reads every other rank's heap at once (get_range), over transfer sizes",
    .heap_bytes = [](int world, std::uint64_t max_bytes) { return (world + 1) * max_bytes; },
};

}  // namespace

int main(int argc, char** argv) { symm::exit_with(symm::examples::run(argc, argv, kSpec, all_load_example)); }
