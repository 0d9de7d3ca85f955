#pragma once
// What every example (00_load ... 06_message_passing) shares: the command line, the
// ranks and the runtime, timing with do_bench, validation bookkeeping, and the results
// as printed tables and a JSON file. An example is one .cu file: its kernels, a body
// that loops over its cases, and a main() that calls symm::examples::run().
//
//   int main(int argc, char** argv) {
//     return symm::examples::run(argc, argv, kSpec, [](Session& s) { ... });
//   }
//
// Included by .cu files: no fmt, CLI11 or JSON here (session.cc has them).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "symm/host/bench.hpp"
#include "symm/host/cuda_resources.hpp"
#include "symm/host/runtime.hpp"

namespace symm::examples {

// What an example is and what it needs.
struct Spec {
  std::string name;     // "01_store": names the JSON file and the tables
  std::string summary;  // one line: --help and the table titles
  int min_ranks = 2;
  bool has_sizes = true;             // a curve over --min_bytes .. --max_bytes
  std::uint64_t min_bytes = 4 << 10;  // defaults of that curve
  std::uint64_t max_bytes = 256 << 20;
  int iterations = 0;  // > 0: an --iterations option (operations per kernel), this default
  // Heap bytes per rank for `world` ranks and the largest size.
  std::function<std::uint64_t(int world, std::uint64_t max_bytes)> heap_bytes;
};

// The command line, after parsing.
struct Options {
  bool validate = false;
  bool benchmark = false;
  std::uint64_t min_bytes = 0, max_bytes = 0;
  int iterations = 0;
  int blocks = 0;  // 0: one per SM
  int threads = 512;
  int n_warmup = 25, n_repeat = 100;
  std::string output_file;
};

// One initiator and one target rank.
struct Pair {
  int initiator = 0;
  int target = 0;
};

inline constexpr int kAllRanks = -1;  // a figure of every rank working at once

// One measured figure. The tables put initiator rows against target columns.
struct Figure {
  std::string variant;  // "store", "copy_engine", "throughput", "latency", ...
  std::string unit;     // "GB/s", "Mops/s", "us"
  std::uint64_t size = 0;  // bytes moved per rank and target (0: not a size curve)
  int initiator = kAllRanks;
  int target = kAllRanks;
  double value = 0;
};

struct Records;  // the figures a Session collected (records.hpp)

class Session {
 public:
  Session(const Spec& spec, const Options& options, Runtime& rt, int argc, char** argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Runtime& runtime() { return rt_; }
  cudaStream_t stream() const { return stream_.get(); }
  const Options& options() const { return options_; }
  int blocks() const;  // --blocks, or one per SM

  // The transfer sizes: --min_bytes, doubling, up to --max_bytes.
  std::vector<std::uint64_t> sizes() const;
  // Every (initiator, target) pair; with include_self, i == j too.
  std::vector<Pair> pairs(bool include_self) const;
  // The CUDA device of every rank (for cudaMemcpyPeerAsync).
  const std::vector<int>& devices() const { return devices_; }
  bool ranks_share_gpus() const { return ranks_share_gpus_; }
  // Ranks sharing a GPU take turns, so such a run checks correctness only: fewer timed
  // iterations and operations (run() calls this unless the counts were given).
  void scale_counts_for_shared_gpus();
  // Where ranks share GPUs (minutes, not seconds), rank 0 says how far the run got.
  void progress(const std::string& done) const;

  // do_bench on every rank: fn enqueues this rank's work (possibly none) on stream();
  // preamble runs untimed before each iteration. Returns every rank's figures.
  CrossRankSummary time(const std::function<void()>& fn,
                        const std::function<void()>& preamble = {});

  // Keeps a figure (with the timing it came from) for the tables and the JSON file.
  void record(const Figure& figure, const CrossRankSummary& timing);
  // Asks for a table (and JSON rows) of numerator / denominator over matching figures.
  void compare(const std::string& numerator, const std::string& denominator);
  // Notes this rank's validation of one case: `wrong` elements were wrong.
  void validated(const std::string& what, std::uint64_t wrong);

  // Collective: prints the tables (rank 0), writes the JSON file, and returns the exit
  // code (1 when any rank saw a validation failure).
  int finish();

 private:
  const Spec& spec_;
  Options options_;
  Runtime& rt_;
  OwnedStream stream_;  // destroyed after bench_device_, which times on it
  std::vector<int> devices_;
  bool ranks_share_gpus_ = false;
  std::uint64_t checks_ = 0, failures_ = 0;
  std::unique_ptr<Records> records_;
  std::unique_ptr<CudaBenchDevice> bench_device_;
};

using Body = std::function<void(Session&)>;

// Parses the command line, launches the ranks, and runs body on each with a Session.
int run(int argc, char** argv, const Spec& spec, const Body& body);

}  // namespace symm::examples
