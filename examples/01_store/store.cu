// 01_store: one rank writes another rank's heap.
//
// For every pair (i, j), rank i copies `size` bytes of its buffer into rank j's heap
// with put_range, while the others wait: a rank x rank matrix of write bandwidth over
// a curve of sizes. The same bytes between the same ranks by the copy engines
// (cudaMemcpyPeerAsync) are measured in the same run, and the ratio store / copy
// engine is reported.
//
//   01_store -r 2 --validate --benchmark --min_bytes 4KiB --max_bytes 256MiB
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

// The blocks walk the words tile by tile, writing them into rank `target`'s copy of `dst`.
__global__ void store_kernel(device::Context ctx, std::uint64_t* dst, const std::uint64_t* src,
                             std::int64_t words, int target) {
  for_each_tile(words, words_per_tile(words), [&](std::int64_t begin, std::int64_t end) {
    device::put_range(cooperative_groups::this_thread_block(), ctx, dst + begin, src + begin,
                      end - begin, target);
  });
}

void store_example(Session& s) {
  Runtime& rt = s.runtime();
  const std::uint64_t max = s.options().max_bytes;
  auto* src = static_cast<std::uint64_t*>(rt.heap().allocate(max));
  auto* dst = static_cast<std::uint64_t*>(rt.heap().allocate(max));
  fill_pattern(src, max, rt.rank(), s.stream());
  rt.barrier(s.stream());
  CopyEngines copy_engines(s);
  s.compare("store", "copy_engine");

  for (const std::uint64_t size : s.sizes()) {
    for (const Pair pair : s.pairs(/*include_self=*/true)) {
      const bool writer = rt.rank() == pair.initiator;
      const auto store = [&] {
        if (!writer) return;
        store_kernel<<<s.blocks(), s.options().threads, 0, s.stream()>>>(
            rt.context(), dst, src, static_cast<std::int64_t>(size / 8), pair.target);
      };
      if (s.options().validate) {
        if (rt.rank() == pair.target) poison(dst, size, s.stream());
        rt.barrier(s.stream());
        store();
        rt.barrier(s.stream());
        if (rt.rank() == pair.target) {
          s.validated("store " + std::to_string(size) + " bytes from rank " + std::to_string(pair.initiator),
                      count_mismatches(dst, size, pair.initiator, s.stream()));
        }
      }
      if (s.options().benchmark) {
        const CrossRankSummary kernel = s.time(store);
        s.record({"store", "GB/s", size, pair.initiator, pair.target, size / kernel.headline_ms / 1e6},
                 kernel);
        const CrossRankSummary engine = s.time([&] {
          if (writer) copy_engines.put(dst, src, size, pair.target);
        });
        s.record({"copy_engine", "GB/s", size, pair.initiator, pair.target,
                  size / engine.headline_ms / 1e6},
                 engine);
      }
    }
  }
}

const Spec kSpec{
    .name = "01_store",
    .summary = "rank i writes rank j's heap (put_range), every pair, over transfer sizes, "
               "beside the copy engines",
    .heap_bytes = [](int, std::uint64_t max_bytes) { return 2 * max_bytes; },
};

}  // namespace

int main(int argc, char** argv) { symm::exit_with(symm::examples::run(argc, argv, kSpec, store_example)); }
