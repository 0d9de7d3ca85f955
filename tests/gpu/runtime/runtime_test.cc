// The runtime on real GPUs: device selection and Context, symmetric allocation (and its
// divergence and overflow errors), do_bench with CUDA events, run metadata.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <random>
#include <regex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "gpu_ranks.hpp"
#include "symm/host/bench.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/results.hpp"
#include "symm/host/runtime.hpp"
#include "symm/host/tensor.hpp"
#include "test_kernels.hpp"

namespace symm::testing {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

Runtime make_runtime(Team& team, std::size_t heap_size) {
  RuntimeOptions options;
  options.heap_size = heap_size;
  return Runtime(team, options);
}

bool message_contains(const std::function<void()>& action, const std::string& text) {
  try {
    action();
  } catch (const Error& e) {
    return std::string(e.what()).find(text) != std::string::npos;
  }
  return false;
}

void check_device_and_context(Team& team) {
  RuntimeOptions options;
  options.heap_size = 32 * kMiB + 1;  // rounds up to the mapping granularity
  Runtime rt(team, options);
  int count = 0, current = -1;
  SYMM_CUDA_CHECK(cudaGetDeviceCount(&count));
  SYMM_CUDA_CHECK(cudaGetDevice(&current));
  require(rt.rank() == team.rank() && rt.world() == team.world(), "rank and world");
  require(rt.device() == team.rank() % count && current == rt.device(), "round-robin GPU");
  require(rt.sm_count() > 0 && !rt.device_name().empty(), "SM count and GPU name");
  const Heap& heap = rt.heap();
  require(heap.size() > options.heap_size && heap.size() % (2 * kMiB) == 0, "heap size rounding");
  // What a kernel sees in the Context.
  std::uint64_t* seen_on_device = nullptr;
  const std::size_t words = 3 + rt.world();
  SYMM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&seen_on_device), words * 8));
  copy_context_on_device(rt, seen_on_device, nullptr);
  std::vector<std::uint64_t> seen(words);
  SYMM_CUDA_CHECK(cudaMemcpy(seen.data(), seen_on_device, words * 8, cudaMemcpyDeviceToHost));
  SYMM_CUDA_CHECK(cudaFree(seen_on_device));
  require(seen[0] == static_cast<std::uint64_t>(rt.rank()) &&
              seen[1] == static_cast<std::uint64_t>(rt.world()),
          "context rank/world");
  require(seen[2] == heap.size(), "context heap_size");
  require(std::equal(heap.bases().begin(), heap.bases().end(), seen.begin() + 3),
          "context bases");
  std::vector<unsigned char> start(kMiB, 0xAB);
  SYMM_CUDA_CHECK(cudaMemcpy(start.data(), heap.base(), start.size(), cudaMemcpyDeviceToHost));
  require(std::all_of(start.begin(), start.end(), [](unsigned char b) { return b == 0; }),
          "a new heap is zeroed");
  std::byte* inside = heap.base() + 12345;
  const int peer = (rt.rank() + 1) % rt.world();
  require(reinterpret_cast<std::uintptr_t>(heap.translate(inside, peer)) ==
              heap.bases()[peer] + 12345,
          "host-side translate");
  require(message_contains([&] { heap.translate(inside, rt.world()); }, "peer outside"),
          "translate refuses a peer outside the team");
  // A range is on the heap only to its last byte.
  std::byte* last = heap.base() + heap.size() - 64;
  require(heap.contains(last, 64) && !heap.contains(last, 65), "contains checks a range's every byte");
  require(message_contains([&] { heap.translate(last, peer, 65); }, "range outside"),
          "translate refuses a range running past the heap's end");
}

void check_symmetric_allocation(Team& team) {
  Runtime rt = make_runtime(team, 16 * kMiB);
  Heap& heap = rt.heap();
  heap.allocate(1000);
  const HeapMark mark = heap.mark();
  void* aligned = heap.allocate(5000, 4096);
  require(reinterpret_cast<std::uintptr_t>(aligned) % 4096 == 0, "4096-byte alignment");
  const std::uint64_t offset = static_cast<std::byte*>(aligned) - heap.base();
  const auto offsets = team.all_gather(std::as_bytes(std::span(&offset, 1)));
  for (int r = 0; r < team.world(); ++r) {
    std::uint64_t theirs = 0;
    std::memcpy(&theirs, offsets.data() + r * sizeof(theirs), sizeof(theirs));
    require(theirs == offset, "rank " + std::to_string(r) + " got another offset");
  }
  heap.release_to(mark);
  require(heap.allocate(5000, 4096) == aligned, "released space is reused at the same offset");
  require(message_contains([&] { heap.allocate(heap.size()); }, "SYMM_HEAP_SIZE"),
          "overflow names the knob");
  require(message_contains([&] { heap.allocate(team.rank() == 0 ? 256 : 512); }, "diverged"),
          "a divergent allocation is reported on every rank");
}

void check_do_bench(Team& team) {
  Runtime rt = make_runtime(team, 64 * kMiB);
  cudaStream_t stream = nullptr;
  SYMM_CUDA_CHECK(cudaStreamCreate(&stream));
  {
    const Tensor<float> x = zeros<float>(rt.heap(), {std::int64_t{4} << 20}, stream);
    CudaBenchDevice device(stream);
    int preambles = 0;
    BenchOptions options;
    options.n_warmup = 3;
    options.n_repeat = 10;
    const BenchResult result = do_bench(
        device, [&] { detail::fill_on_device(x.data, x.numel(), 1.0f, stream); },
        [&] { rt.barrier(stream); }, [&] { ++preambles; }, options);
    require(preambles == 1 + 3 + 10, "preamble count");
    require(result.samples_ms.size() == 10, "one sample per timed iteration");
    require(std::all_of(result.samples_ms.begin(), result.samples_ms.end(),
                        [](double ms) { return ms > 0 && ms < 1000; }),
            "samples are positive and plausible");
    const CrossRankSummary summary = summarize_across_ranks(team, result);
    require(summary.ranks.at(rt.rank()).median_ms == result.median_ms, "own figures gathered");
    for (const RankFigures& figures : summary.ranks) {
      require(summary.headline_ms >= figures.median_ms, "headline is the slowest median");
    }
    const char* argv[] = {"runtime_gpu_test", "--flag"};
    const RunInfo info = collect_run_info(2, argv, rt);
    require(info.gpu_name == rt.device_name() && info.world == rt.world(), "run info GPU/world");
    require(std::regex_match(info.driver_version, std::regex(R"(\d+\.\d+)")) &&
                std::regex_match(info.cuda_runtime_version, std::regex(R"(\d+\.\d+)")),
            "versions look like 13.0: " + info.driver_version + ", " + info.cuda_runtime_version);
    require(info.heap_transport == "vmm" || info.heap_transport == "ipc", "transport named");
    // The gpu tier puts both ranks on one GPU, the multigpu tier each on its own.
    require(info.rank_gpus == rt.rank_gpus() && info.gpus() == SYMM_TEST_GPUS &&
                info.ranks_per_gpu() == 2 / SYMM_TEST_GPUS,
            "placement: " + std::to_string(info.gpus()) + " GPU(s), " + std::to_string(info.ranks_per_gpu()) +
                " rank(s) per GPU");
  }
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
}

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// A cycle through `hops` 128-byte lines spread over `words` words, starting and ending
// at word 0, in an order the hardware cannot prefetch.
std::vector<std::uint32_t> link_cycle(std::size_t words, int hops) {
  constexpr std::uint32_t kLineWords = 32;
  std::vector<std::uint32_t> lines(words / kLineWords - 1);
  std::iota(lines.begin(), lines.end(), 1u);
  std::shuffle(lines.begin(), lines.end(), std::mt19937(12345));
  lines.resize(static_cast<std::size_t>(hops - 1));
  lines.insert(lines.begin(), 0u);
  std::vector<std::uint32_t> links(words, 0);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    links[lines[i] * kLineWords] = lines[(i + 1) % lines.size()] * kLineWords;
  }
  return links;
}

// The timer reads a kernel of known length, and the L2 flush has an effect: a chain of
// loads over 16 MiB (inside any Hopper L2) is slower right after a flush than warm.
void check_timer_and_flush(Team& team) {
  Runtime rt = make_runtime(team, 16 * kMiB);
  cudaStream_t stream = nullptr;
  SYMM_CUDA_CHECK(cudaStreamCreate(&stream));
  {
    CudaBenchDevice device(stream);
    constexpr double kSpinMs = 20;
    spin_for(1000, stream);  // loads the module (lazy loading) outside the timed runs
    for (int i = 0; i < 3; ++i) {
      const double ms = device.time_ms([&] { spin_for(static_cast<std::uint64_t>(kSpinMs * 1e6), stream); });
      require(ms >= kSpinMs * 0.99 && ms < kSpinMs + 2,
              "a 20 ms kernel timed " + std::to_string(ms) + " ms");
    }

    constexpr int kHops = 4096;
    const std::vector<std::uint32_t> links = link_cycle(16 * kMiB / 4, kHops);
    std::uint32_t* device_links = nullptr;
    SYMM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&device_links), links.size() * 4 + 4));
    std::uint32_t* end = device_links + links.size();
    SYMM_CUDA_CHECK(cudaMemcpy(device_links, links.data(), links.size() * 4, cudaMemcpyHostToDevice));
    const auto chase = [&] { chase_links(device_links, kHops, end, stream); };
    std::vector<double> warm, flushed;
    for (int round = 0; round < 9; ++round) {
      chase();  // brings the chain's lines into L2
      warm.push_back(device.time_ms(chase));
      device.flush_l2();
      flushed.push_back(device.time_ms(chase));
    }
    std::uint32_t ended_at = 1;
    SYMM_CUDA_CHECK(cudaMemcpy(&ended_at, end, 4, cudaMemcpyDeviceToHost));
    SYMM_CUDA_CHECK(cudaFree(device_links));
    require(ended_at == 0, "the chain went round its cycle");
    require(median(flushed) > 1.5 * median(warm),
            "after an L2 flush the chain took " + std::to_string(median(flushed)) + " ms, warm " +
                std::to_string(median(warm)) + " ms: the flush did not evict it");
  }
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
}

// free_memory_per_rank: the GPU's free memory shared among the ranks on it (two on one GPU
// in the gpu tier, one per GPU in the multigpu tier), the same figure on every rank, and a
// heap of that size (less a margin for the context the Runtime adds) maps.
void check_free_memory_per_rank(Team& team) {
  const std::uint64_t share = free_memory_per_rank(team);
  std::size_t free = 0, total = 0;
  SYMM_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  const std::uint64_t ranks_here = SYMM_TEST_GPUS == 1 ? 2 : 1;
  require(share <= free / ranks_here + (std::uint64_t{1} << 30) && share >= free / ranks_here / 2,
          "free_memory_per_rank gave " + std::to_string(share) + " bytes with " + std::to_string(free) +
              " free on a GPU of " + std::to_string(ranks_here) + " ranks");
  const auto all = team.all_gather(std::as_bytes(std::span(&share, 1)));
  for (int r = 0; r < team.world(); ++r) {
    std::uint64_t theirs = 0;
    std::memcpy(&theirs, all.data() + r * sizeof theirs, sizeof theirs);
    require(theirs == share, "rank " + std::to_string(r) + " was given another figure");
  }
  const Runtime rt = make_runtime(team, share - (std::uint64_t{2} << 30));
  require(rt.heap().size() >= share - (std::uint64_t{2} << 30), "the heap is smaller than asked");
}

TEST(SYMM_SUITE(Runtime), FreeMemoryPerRankIsSharedAmongTheRanksOfAGpuAndMaps) {
  SYMM_REQUIRE_GPUS(SYMM_TEST_GPUS);
  EXPECT_EQ(run_on_ranks(2, check_free_memory_per_rank), 0);
}

TEST(SYMM_SUITE(Runtime), DeviceSelectionAndContext) {
  SYMM_REQUIRE_GPUS(SYMM_TEST_GPUS);
  EXPECT_EQ(run_on_ranks(2, check_device_and_context), 0);
}

TEST(SYMM_SUITE(Runtime), SymmetricAllocationReleaseAndErrors) {
  SYMM_REQUIRE_GPUS(SYMM_TEST_GPUS);
  EXPECT_EQ(run_on_ranks(2, check_symmetric_allocation), 0);
}

TEST(SYMM_SUITE(Runtime), DoBenchWithCudaEventsAndRunInfo) {
  SYMM_REQUIRE_GPUS(SYMM_TEST_GPUS);
  EXPECT_EQ(run_on_ranks(2, check_do_bench), 0);
}

// A rank that fails with its heap alive is reported at once: its heap's teardown does not
// wait for a peer that is busy elsewhere (it waited for the team barrier's time limit, or
// until the peer's own teardown: here 60 s).
TEST(SYMM_SUITE(Runtime), AFailingRankIsReportedWithoutWaitingForItsPeers) {
  SYMM_REQUIRE_GPUS(SYMM_TEST_GPUS);
  const auto start = std::chrono::steady_clock::now();
  const int code = run_on_ranks(2, [](Team& team) {
    Runtime rt = make_runtime(team, 16 * kMiB);
    if (team.rank() == 1) throw Error("deliberate failure on rank 1, its heap alive");
    std::this_thread::sleep_for(std::chrono::seconds(60));  // rank 0: busy, at no barrier
  });
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(code, 0);
  EXPECT_LT(seconds, 30) << "the job took " << seconds << " s to end after rank 1 failed";
}

// One rank: a rank sharing the GPU would stretch the timed kernels.
TEST(SYMM_SUITE(Runtime), TimerReadsAKnownDurationAndTheFlushEvictsL2) {
  SYMM_REQUIRE_GPUS(SYMM_TEST_GPUS);
  EXPECT_EQ(run_on_ranks(1, check_timer_and_flush), 0);
}

}  // namespace
}  // namespace symm::testing
