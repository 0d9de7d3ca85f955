#pragma once
// The command line of the GEMM + all-scatter programs (Iris's names) and the checks of
// its combinations, run before the ranks start wherever no GPU is needed.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver.hpp"
#include "symm/gemm/config.hpp"
#include "symm/host/launch.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::examples::gemm_all_scatter {

// One entry of --variant: a variant, or none for "auto" (the plan's choice).
using RequestedVariant = std::optional<ops::ScatterVariant>;
std::string requested_name(const RequestedVariant& v);  // "auto" or the variant's name

// "all", "auto", a variant, or a comma list of them (duplicates dropped) appended to
// `out`; returns what is wrong, or empty.
std::string parse_variants(const std::string& text, std::vector<RequestedVariant>& out);

struct CommandLine {
  ops::AllScatterShape shape{8192, 4608, 36864};
  ops::GemmAllScatterOptions op;  // everything but the variant
  std::vector<RequestedVariant> variants;
  bool validate = false;
  bool benchmark = false;
  bool baselines = true;
  bool trace_tiles = false;  // -t: a traced run of each variant after the measurements
  int n_warmup = 25, n_repeat = 100;
  bool counts_given = false;  // --n_warmup or --n_repeat on the command line
  std::uint64_t seed = 0;     // 0: a fresh one, chosen by rank 0
  std::uint64_t heap_size = 0;  // 0: SYMM_HEAP_SIZE, else what the shapes need
  std::string output_file;
  std::string preset;  // --preset: a sweep (sweep.hpp); the preset then defines the points
  LaunchOptions launch;
};

// What a sweep's points are measured with beside its preset, by the flag or variable that
// sets it: --gemm_sms, --num_sms, --comm_sms, --n_warmup and --n_repeat (null: the
// preset's), and every SYMM_GEMM_* variable set. A resumed sweep must have the same.
nlohmann::json sweep_settings(const CommandLine& cl);

// Parses argv and checks what needs no GPU. Returns -1 to go on, else the exit code
// (0 after --help, 2 for a bad command line, with one line saying what is wrong).
int parse(int argc, char** argv, const Program& program, CommandLine& cl);

// Empty when the shape and options can run on `world` ranks of a GPU with `sm_count`
// SMs (every requested variant planned), else one line naming the flag, its value and
// what is allowed. Pure host logic: called before the launch with the world of -r and
// the default SM count, and again in every rank with the real ones.
std::string check_combination(const CommandLine& cl, int world, int sm_count);

// Empty when `name` is a built configuration (then in `out`), else "<name>: no such
// configuration is built; ..." naming the built ones of that tile size, if any.
// --config and the presets' "configs" take names through it.
std::string built_config_named(const std::string& name, gemm::KernelConfig& out);

// The built tile configurations the command line and presets can name (cooperative ones),
// comma-separated: what a refusal of another one lists.
std::string built_tile_names();

// Heap bytes per rank: A, the B shard, C, the C-sized buffers of one contender at a time
// (loopback copies, the baselines' tuning C), and a margin for flags.
std::uint64_t heap_bytes_needed(const CommandLine& cl, int world);

// The heap size the user gave: --heap_size, else SYMM_HEAP_SIZE; 0 when neither (the heap
// is then sized for the run).
std::uint64_t heap_size_given(const CommandLine& cl);

// Device memory per rank, about: the heap (the size given, else heap_bytes_needed), what
// the run allocates outside it (the fp32 reference C when validating; the baselines'
// all-gather buffer and cuBLASLt's output check), and kDeviceReserveBytes for what every
// rank creates anyway (its CUDA context, NCCL, cuBLAS workspaces, the L2 flush buffer).
// Saturates as heap_bytes_needed does.
inline constexpr std::uint64_t kDeviceReserveBytes = std::uint64_t{2} << 30;
std::uint64_t device_bytes_needed(const CommandLine& cl, int world);

// Empty when the run's device memory (device_bytes_needed) fits in `bytes_per_rank`, what
// each rank has (free_memory_per_rank); else what it needs and has, and what to do. Asked
// before the heap is mapped: a single run refuses, a sweep skips the point or leaves it to
// a later launch (plan_launch_memory).
std::string memory_problem(const CommandLine& cl, int world, std::uint64_t bytes_per_rank);

}  // namespace symm::examples::gemm_all_scatter
