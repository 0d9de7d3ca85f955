// The driver: the command line, then on every rank the runtime, the operands, the
// reference, each contender in turn, and on rank 0 the table and the JSON file.
#include "driver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <span>

#include "command_line.hpp"
#include "contenders.hpp"
#include "gather.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/launch.hpp"
#include "symm/host/log.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

class OwnedStream {
 public:
  OwnedStream() { SYMM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~OwnedStream() { warn_on_cuda_error(cudaStreamDestroy(stream_), "cudaStreamDestroy"); }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// --seed, or a fresh one from rank 0 when it is 0: every rank needs the same A.
std::uint64_t agreed_seed(Team& team, std::uint64_t given) {
  std::uint64_t seed = given;
  if (seed == 0 && team.rank() == 0) {
    // 53 bits: the seed stays exact in any JSON reader (doubles).
    const auto now = std::chrono::system_clock::now().time_since_epoch().count();
    seed = std::max<std::uint64_t>(static_cast<std::uint64_t>(now) & ((std::uint64_t{1} << 53) - 1), 1);
  }
  team.broadcast(std::as_writable_bytes(std::span(&seed, 1)), 0);
  return seed;
}

int distinct_count(std::vector<int> values) {
  std::sort(values.begin(), values.end());
  return static_cast<int>(std::unique(values.begin(), values.end()) - values.begin());
}

RuntimeOptions runtime_options(const CommandLine& cl, int world) {
  RuntimeOptions options = RuntimeOptions::from_env();
  if (cl.heap_size > 0)
    options.heap_size = cl.heap_size;
  else if (std::getenv("SYMM_HEAP_SIZE") == nullptr)
    options.heap_size = heap_bytes_needed(cl, world);
  return options;
}

int rank_main(Team& team, const Program& program, const CommandLine& cl, int argc, char** argv) {
  Runtime rt(team, runtime_options(cl, team.world()));
  // What the supervisor could not check: the world without -r, the GPU's SM count.
  if (const std::string why = check_combination(cl, rt.world(), rt.sm_count()); !why.empty()) {
    if (rt.rank() == 0) log::error(fmt::format("{}: {}", program.name, why));
    return 2;
  }
  OwnedStream stream;
  const std::vector<int> devices = gather(team, rt.device());
  const int gpus = distinct_count(devices);
  const bool shared = gpus < rt.world();
  BenchOptions counts;
  counts.n_warmup = cl.n_warmup;
  counts.n_repeat = cl.n_repeat;
  if (shared && !cl.counts_given) {
    // Ranks on one GPU take turns: such a run checks correctness, so keep it short.
    counts.n_warmup = std::min(counts.n_warmup, 1);
    counts.n_repeat = std::min(counts.n_repeat, 3);
  }
  const std::uint64_t seed = agreed_seed(team, cl.seed);
  if (rt.rank() == 0) {
    log::info(fmt::format("{}: {} rank{} on {} GPU{}, seed {} (--seed {} gives the same operands){}",
                          program.name, rt.world(), rt.world() == 1 ? "" : "s", gpus,
                          gpus == 1 ? "" : "s", seed, seed,
                          shared ? fmt::format("; ranks share GPUs: a correctness run, not speed, "
                                               "with {} warm-up and {} timed iterations",
                                               counts.n_warmup, counts.n_repeat)
                                 : ""));
  }

  const Operands operands = make_operands(rt, cl.shape, seed, stream.get());
  rt.barrier(stream.get());
  std::optional<Reference> reference;
  if (cl.validate) reference.emplace(cl.shape, rt.world(), operands.a, seed, stream.get());
  // Contenders are timed in interleaved rounds, each taking its share of the iterations,
  // so a GPU whose clock drifts under sustained load (it does: 0.87 -> 0.98 ms over 30
  // samples of one contender) does not favour whichever contender runs first.
  const int rounds = cl.benchmark ? std::min(counts.n_repeat, kTimingRounds) : 1;
  std::vector<Row> rows;
  for (int round = 0; round < rounds; ++round) {
    const bool validating = cl.validate && round == 0;
    Measurement m(rt, cl, operands, validating ? &*reference : nullptr, stream.get(),
                  round_share(counts, round, rounds));
    std::vector<Row> measured = measure_variants(m);
    if (cl.benchmark) measured.push_back(measure_gemm_alone(m));
    if (cl.baselines) {
      for (Row& row : measure_baselines(m)) measured.push_back(std::move(row));
    }
    merge_round(rows, std::move(measured));
  }

  const RunFacts facts{program, cl, rt.world(), gpus, shared, seed};
  if (rt.rank() == 0) {
    print_table(facts, rows);
    write_results(facts, rows, rt, argc, argv);
  }
  const bool failed = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.valid == false; });
  return failed ? 1 : 0;
}

}  // namespace

int run(int argc, char** argv, const Program& program) {
  CommandLine cl;
  if (const int code = parse(argc, argv, program, cl); code >= 0) return code;
  return launch(cl.launch, [&](Team& team) { return rank_main(team, program, cl, argc, argv); });
}

}  // namespace symm::examples::gemm_all_scatter
