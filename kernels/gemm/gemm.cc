// The GEMM entry point: options, device limits, split-K workspace and the launch.
#include "symm/gemm/gemm.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "symm/host/bench.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/device_reach.hpp"
#include "symm/host/runtime.hpp"
#include "launch.hpp"
#include "symm/common/error.hpp"
#include "symm/gemm/plan_cache.hpp"
#include "symm/gemm/tensor_maps.hpp"

namespace symm::gemm {
namespace {

// tune keeps the heuristic's plan unless another runs this much faster: the recorded plan
// is reused by every later run, and with five samples each the lowest median was often
// noise (issue4.json: tuned plans 0.989 of cuBLASLt, the untuned ones 0.995; 16384^3
// tuned 0.952, untuned 0.992; bench/results/gemm/2026-12-03-presets-6c47447).
constexpr double kTuneMargin = 0.02;

// Every candidate's median over the heuristic's (the first), in the order timed: what the
// choice rests on, kept with the plan (results files, verbose runs).
std::string timed_medians(const std::vector<Plan>& plans, const FastestChoice& fastest) {
  std::string out;
  for (std::size_t i = 0; i < plans.size(); ++i)
    out += fmt::format("{}{} {} {:.3f}", i ? ", " : "", to_string(plans[i].config), decomposition(plans[i].sched),
                       fastest.median_ms[i] / fastest.median_ms.front());
  return out;
}

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

int env_int(const char* name, int fallback) {
  const char* v = env(name);
  if (!v) return fallback;
  int x = 0;
  const std::string_view text = v;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (error != std::errc() || end != text.data() + text.size())
    throw Error(fmt::format("symm gemm: {}='{}' is not valid: expected a whole number (docs/gemm.md lists "
                            "the range of each); fix it, or unset it for the default",
                            name, v));
  return x;
}

}  // namespace

GemmOptions GemmOptions::from_env() {
  GemmOptions o;
  if (const char* c = env("SYMM_GEMM_CONFIG")) {
    KernelConfig cfg;
    if (!parse_config(c, cfg))
      throw Error(fmt::format("symm gemm: SYMM_GEMM_CONFIG='{}' is not valid: expected BMxBNxBKsSTAGES, then "
                              "an optional cluster (cM for M x 1 blocks, or cMxN) and an optional -pingpong or "
                              "-swapped, e.g. 128x256x64s4, 128x128x64s6-pingpong, 128x256x64s4c2x2 or "
                              "200x128x64s4c2-swapped; fix it, or unset it for the heuristic's choice",
                              c));
    o.config = cfg;
  }
  o.num_blocks = env_int("SYMM_GEMM_SMS", o.num_blocks);
  o.gsize_m = env_int("SYMM_GEMM_GSIZE_M", o.gsize_m);
  o.k_splits = env_int("SYMM_GEMM_SPLITS", o.k_splits);
  o.stream_k = env_int("SYMM_GEMM_STREAM_K", o.stream_k);
  o.split_tail = env_int("SYMM_GEMM_SPLIT_TAIL", o.split_tail);
  o.pingpong = env_int("SYMM_GEMM_PINGPONG", o.pingpong);
  o.clusters = env_int("SYMM_GEMM_CLUSTERS", o.clusters);
  const int copies = env_int("SYMM_GEMM_OPERAND_COPIES", 1);
  if (copies != 0 && copies != 1)
    throw Error(fmt::format("symm gemm: SYMM_GEMM_OPERAND_COPIES={} is not valid: give 1 (copy operands "
                            "whose rows TMA cannot read, or reads slowly, where it pays; the default) or 0 "
                            "(never copy: such problems run the mma.sync fallback or straddling rows)",
                            copies));
  o.operand_copies = copies == 1;
  o.force_fallback = env_int("SYMM_GEMM_FORCE_FALLBACK", 0) != 0;
  o.verbose = env_int("SYMM_GEMM_VERBOSE", 0) != 0;
  if (auto why = validate(o); !why.empty()) throw Error("symm gemm: " + why);
  return o;
}

DeviceLimits query_device_limits(int device) {
  DeviceLimits d;
  auto attr = [&](cudaDeviceAttr a, const char* name) {
    int v = 0;
    check_cuda(cudaDeviceGetAttribute(&v, a, device), name);
    return v;
  };
  d.sm_count = attr(cudaDevAttrMultiProcessorCount, "cudaDeviceGetAttribute(multiprocessors)");
  d.max_smem_per_block =
      attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, "cudaDeviceGetAttribute(shared memory opt-in)");
  d.cc_major = attr(cudaDevAttrComputeCapabilityMajor, "cudaDeviceGetAttribute(cc major)");
  d.cc_minor = attr(cudaDevAttrComputeCapabilityMinor, "cudaDeviceGetAttribute(cc minor)");
  const int memory_khz = attr(cudaDevAttrMemoryClockRate, "cudaDeviceGetAttribute(memory clock)");
  const int bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth, "cudaDeviceGetAttribute(memory bus width)");
  if (memory_khz > 0 && bus_bits > 0) d.memory_bytes_per_s = 2.0 * memory_khz * 1e3 * bus_bits / 8;
  // The probe kernel is built for sm_90a, like every cluster kernel; elsewhere none runs.
  if (d.cc_major == 9 && d.cc_minor == 0)
    d.quad_cluster_blocks = detail::resident_blocks_in_clusters(4, d.max_smem_per_block);
  return d;
}

Gemm::Gemm(GemmOptions options)
    : options_(std::move(options)), wait_timeout_ns_(device_wait_timeout_ns()) {
  if (auto why = validate(options_); !why.empty()) throw Error("symm gemm: invalid options: " + why);
  check_cuda(cudaGetDevice(&device_), "cudaGetDevice");
  limits_ = query_device_limits(device_);
}

Gemm::~Gemm() = default;

std::string Gemm::failure_report() const {
  return describe(read_wait_record(wait_record_.host()));
}

// At least `bytes` of `buffer` for a launch on `stream`. A larger buffer replaces a
// smaller one, which is freed unless a captured graph uses it (kept until the Gemm goes).
// New counters are zeroed; from then on every launch leaves them zero. No memory can be
// allocated while the stream is captured: a plan that needs more must run once before.
void* Gemm::reserve(GrowingScratch& buffer, std::size_t bytes, bool zeroed, const char* what, cudaStream_t stream,
                    bool capturing) {
  if (bytes > buffer.bytes) {
    if (capturing)
      throw Error(fmt::format(
          "symm gemm: the plan needs {} bytes of {}, more than this Gemm has allocated ({}), and the stream is "
          "being captured into a graph, where no memory can be allocated: run the plan once before the capture "
          "(Gemm::run, then synchronise), so that the Gemm holds what the graph will use",
          bytes, what, buffer.bytes));
    DeviceBuffer grown(bytes, fmt::format("gemm {}, {} bytes: to need none, set SYMM_GEMM_SPLITS=1 "
                                          "SYMM_GEMM_STREAM_K=0 and give A, B and C 16-byte aligned rows of a "
                                          "multiple of 128 bytes",
                                          what, bytes));
    if (zeroed) check_cuda(cudaMemsetAsync(grown.get(), 0, bytes, stream), "cudaMemsetAsync(gemm split-K counters)");
    if (buffer.captured) retired_.push_back(std::move(buffer.memory));
    buffer = GrowingScratch{std::move(grown), bytes, false};
  }
  buffer.captured = buffer.captured || capturing;
  return buffer.memory.get();
}

void Gemm::prepare_workspace(const Plan& plan, SplitKWorkspace& ws, std::uint8_t*& scratch, cudaStream_t stream) {
  const WorkspaceLayout layout = workspace_layout(plan);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  check_cuda(cudaStreamIsCapturing(stream, &capture), "cudaStreamIsCapturing");
  const bool capturing = capture != cudaStreamCaptureStatusNone;
  if (layout.counter_bytes > 0)
    ws.counters =
        static_cast<int*>(reserve(counters_, layout.counter_bytes, true, "split-K counters", stream, capturing));
  if (layout.scratch_bytes() > 0) {
    scratch = static_cast<std::uint8_t*>(
        reserve(scratch_, layout.scratch_bytes(), false, "split-K partials and operand copies", stream, capturing));
    ws.partials = reinterpret_cast<float*>(scratch);
  }
}

const OperandMaps& Gemm::operand_maps(const GemmProblem& launched, const KernelConfig& config) {
  if (!(launched == maps_problem_) || !(config == maps_config_)) {
    maps_ = make_operand_maps(launched, config);
    maps_problem_ = launched;
    maps_config_ = config;
  }
  return maps_;
}

void Gemm::check_reachable(const GemmProblem& p) {
  const std::array<const void*, 3> operands{p.a, p.b, p.c};
  if (reachable_ == operands) return;
  for (auto [name, pointer] : {std::pair{"A", p.a}, {"B", p.b}, {"C", static_cast<const void*>(p.c)}})
    if (auto why = unreachable_from_device(pointer, device_, fmt::format("symm gemm: {}", name)); !why.empty())
      throw Error(why);
  reachable_ = operands;
}

const Plan& Gemm::planned(const GemmProblem& p) {
  if (!last_plan_ || !(last_plan_->first == p)) last_plan_.emplace(p, plan(p));
  return last_plan_->second;
}

Plan Gemm::tune(const GemmProblem& p, cudaStream_t stream, int candidates, int runs_at_least) {
  if (options_.force_fallback || options_.config) return plan(p);  // nothing to choose
  const auto plans = candidate_plans(p, options_, limits_, candidates);
  if (plans.size() < 2) return plan(p);
  const PlanCache cache = PlanCache::from_env();
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties(plan cache key)");
  const std::string key = plan_cache_key(prop.name, limits_, p, options_, plans);
  if (auto cached = cache.find(key, plans)) return *cached;
  // Timed as the benchmark times: each run after an L2 flush (a small problem's operands
  // would stay in L2 otherwise, and the host's work between runs, another plan's tensor
  // maps, overlaps the flush instead of adding to a short kernel), in interleaved rounds,
  // more of them for short problems (bench.hpp, fastest_of).
  CudaBenchDevice timer(stream);
  std::vector<std::function<void()>> runs;
  for (std::size_t i = 0; i < plans.size(); ++i) runs.push_back([this, &p, &plans, i, stream] { run(p, plans[i], stream); });
  const FastestChoice fastest = fastest_of(timer, runs, runs_at_least, kTuneMargin);
  Plan chosen = plans[fastest.index];
  chosen.reason =
      (fastest.index == 0
           ? fmt::format("tuned: the heuristic's plan kept, none of the other {} ran {:.0f} % faster ({} interleaved "
                         "runs each)",
                         plans.size() - 1, 100 * kTuneMargin, fastest.rounds)
           : fmt::format("tuned: fastest median of {} candidate plans, {:.1f} % below the heuristic's ({} "
                         "interleaved runs each)",
                         plans.size(), 100 * (1 - fastest.median_ms[fastest.index] / fastest.median_ms.front()),
                         fastest.rounds)) +
      "; medians over the heuristic's: " + timed_medians(plans, fastest);
  return cache.record(key, chosen, plans);  // another rank's plan where it recorded one first
}

void Gemm::run(const GemmProblem& p, const Plan& plan, cudaStream_t stream) {
  try {
    enqueue(p, plan, stream);
  } catch (const Error& e) {
    // A launch may be the first to see an earlier launch's trap: say which wait it was.
    const std::string report = failure_report();
    if (report.empty()) throw;
    throw Error(std::string(e.what()) + "\n" + report);
  }
}

void Gemm::enqueue(const GemmProblem& p, const Plan& plan, cudaStream_t stream) {
  if (auto why = plan_mismatch(p, plan); !why.empty()) throw Error("symm gemm: " + why);
  check_reachable(p);
  if (options_.verbose) fmt::print(stderr, "{}\n", describe(p, plan));
  if (plan.kind == KernelKind::fallback) {
    FallbackParams params{p.a,   p.b,   p.c,   int(p.m), int(p.n), int(p.k),
                          p.lda, p.ldb, p.ldc, plan.sched.k_splits, {}};
    std::uint8_t* scratch = nullptr;
    if (workspace_bytes(plan) > 0) prepare_workspace(plan, params.splitk, scratch, stream);
    detail::launch_fallback(p.in_dtype, p.out_dtype, p.b_layout, plan.config, plan.aligned_loads, params,
                            stream);
    return;
  }
  WgmmaParams params;
  const WorkspaceLayout layout = workspace_layout(plan);
  std::uint8_t* scratch = nullptr;
  if (layout.total() > 0) prepare_workspace(plan, params.splitk, scratch, stream);
  const OperandCopies& copies = plan.copies;
  const GemmProblem q = with_copies(p, copies, scratch + layout.copy_a_offset(),
                                    scratch + layout.copy_b_offset(), scratch + layout.copy_c_offset());
  const int in = dtype_bytes(p.in_dtype), out = dtype_bytes(p.out_dtype);
  if (copies.a.needed())
    detail::copy_rows(const_cast<void*>(q.a), copies.a.pitch, p.a, p.lda * in, copies.a.row_bytes, copies.a.rows, stream);
  if (copies.b.needed())
    detail::copy_rows(const_cast<void*>(q.b), copies.b.pitch, p.b, p.ldb * in, copies.b.row_bytes, copies.b.rows, stream);
  const OperandMaps& maps = operand_maps(q, plan.config);
  params.a = maps.a;
  params.b = maps.b;
  params.b_tail = maps.b_tail;
  params.c = maps.c;
  params.c_tail = maps.c_tail;
  params.sched = plan.sched;
  params.m = int(p.m);
  params.n = int(p.n);
  params.wait_timeout_ns = wait_timeout_ns_;
  params.wait_record = static_cast<GemmWaitRecord*>(wait_record_.device());
  detail::WgmmaLaunch launch{plan.config, plan.num_blocks, 0};
  // Split-K and stream-K blocks wait for each other: all must be resident.
  if (layout.counter_bytes > 0) launch.resident_limit = limits_.sm_count;
  detail::launch_wgmma(p.in_dtype, p.out_dtype, p.b_layout, launch, params, stream);
  if (copies.c.needed())
    detail::copy_rows(p.c, p.ldc * out, q.c, copies.c.pitch, copies.c.row_bytes, copies.c.rows, stream);
}

}  // namespace symm::gemm
