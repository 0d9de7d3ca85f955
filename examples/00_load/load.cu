// 00_load: one rank reads another rank's heap.
//
// For every pair (i, j), rank i copies `size` bytes of rank j's buffer into its own
// with get_range, while the others wait: a rank x rank matrix of read bandwidth over a
// curve of sizes. The diagonal is a rank reading its own heap.
//
//   00_load -r 2 --validate --benchmark --min_bytes 4KiB --max_bytes 256MiB
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

// The blocks walk the words tile by tile, reading them from rank `target`'s copy of `src`.
__global__ void load_kernel(device::Context ctx, std::uint64_t* dst, const std::uint64_t* src,
                            std::int64_t words, int target) {
  for_each_tile(words, words_per_tile(words), [&](std::int64_t begin, std::int64_t end) {
    device::get_range(cooperative_groups::this_thread_block(), ctx, dst + begin, src + begin,
                      end - begin, target);
  });
}

void load_example(Session& s) {
  Runtime& rt = s.runtime();
  const std::uint64_t max = s.options().max_bytes;
  auto* src = static_cast<std::uint64_t*>(rt.heap().allocate(max));
  auto* dst = static_cast<std::uint64_t*>(rt.heap().allocate(max));
  fill_pattern(src, max, rt.rank(), s.stream());
  rt.barrier(s.stream());

  for (const std::uint64_t size : s.sizes()) {
    for (const Pair pair : s.pairs(/*include_self=*/true)) {
      const bool reader = rt.rank() == pair.initiator;
      const auto load = [&] {
        if (!reader) return;
        load_kernel<<<s.blocks(), s.options().threads, 0, s.stream()>>>(
            rt.context(), dst, src, static_cast<std::int64_t>(size / 8), pair.target);
      };
      if (s.options().validate && reader) {
        poison(dst, size, s.stream());
        load();
        s.validated("load " + std::to_string(size) + " bytes from rank " + std::to_string(pair.target),
                    count_mismatches(dst, size, pair.target, s.stream()));
      }
      if (s.options().benchmark) {
        const CrossRankSummary t = s.time(load);
        s.record({"load", "GB/s", size, pair.initiator, pair.target, size / t.headline_ms / 1e6}, t);
      }
    }
  }
}

const Spec kSpec{
    .name = "00_load",
    .summary = "rank i reads rank j's heap (get_range), every pair, over transfer sizes",
    .heap_bytes = [](int, std::uint64_t max_bytes) { return 2 * max_bytes; },
};

}  // namespace

int main(int argc, char** argv) { symm::exit_with(symm::examples::run(argc, argv, kSpec, load_example)); }
