// GemmAllScatter: the heap state of the op (tile flags, epochs, arrival flags, loopback
// buffers), its launch parameters, and the launches of each variant.
#include "symm/ops/gemm_all_scatter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "launch.hpp"
#include "rank_agreement.hpp"
#include "tile_trace.hpp"
#include "symm/gemm/gemm.hpp"
#include "symm/gemm/tensor_maps.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/cuda_resources.hpp"
#include "symm/host/device_reach.hpp"
#include "symm/host/runtime.hpp"
#include "symm/host/tensor.hpp"

namespace symm::ops {
namespace {

// The variants whose tiles are moved by blocks of their own (push_tiles.cuh).
bool has_push_role(ScatterVariant v) {
  return v == ScatterVariant::wg_specialization || v == ScatterVariant::producer_consumer ||
         v == ScatterVariant::bulk_synchronous;
}

// The plan, once every rank has made the same one: before anything collective is
// allocated, so that ranks that disagree all stop here, each saying why.
AllScatterPlan agreed_plan(Runtime& rt, const AllScatterShape& shape, const GemmAllScatterOptions& options) {
  std::optional<AllScatterPlan> plan;
  std::string refusal;
  try {
    plan = make_plan(shape, options, rt.world(), gemm::query_device_limits(rt.device()));
  } catch (const Error& e) {
    refusal = e.what();
  }
  detail::check_ranks_agree(rt.team(), detail::plan_terms(shape, plan ? &*plan : nullptr), refusal);
  return *plan;
}

}  // namespace

struct GemmAllScatter::State {
  Runtime& rt;
  AllScatterShape shape;
  GemmAllScatterOptions options;
  AllScatterPlan plan;
  StreamBarrier barrier;
  std::uint64_t wait_timeout_ns = device_wait_timeout_ns();  // SYMM_WAIT_TIMEOUT_MS, read once
  std::uint64_t* tile_flags = nullptr;  // heap: tiles x kConsumers (device scope, local)
  std::vector<void*> loopback;
  MappedHostBuffer record{sizeof(WaitFailureRecord), "wait failure record"};
  // The GEMM blocks' own bounded waits (a ring stage, gemm/wait_record.hpp).
  MappedHostBuffer gemm_record{sizeof(gemm::GemmWaitRecord), "GEMM wait record"};
  DeviceBuffer split_workspace;  // fused plans that split tiles: counters, then fp32 partials
  DeviceBuffer tile_claims;      // the push role's: claims taken, copiers retired (params.hpp)
  std::unique_ptr<gemm::Gemm> gemm;  // bulk_synchronous
  struct SideStream {  // producer_consumer: the scatter kernel's stream, forked and joined
    OwnedStream stream;
    OwnedEvent fork, join;
  };
  std::optional<SideStream> side;
  // Launch parameters of the last (a, b, c): tensor maps are encoded once per operand set.
  const void* last_a = nullptr;
  const void* last_b = nullptr;
  void* last_c = nullptr;
  // The C buffers every rank has been seen to pass at the same heap offset: checked
  // (collectively) the first time each is run, not on every switch between two.
  std::vector<const void*> agreed_c;
  gemm::GemmProblem shard;
  detail::FusedLaunch launch;
  // A run that failed after enqueueing part of its work (partly_enqueued when it threw)
  // left the epoch unadvanced or tile claims unretired: later runs are out of step.
  bool partly_enqueued = false;
  std::string failed_run;
  std::unique_ptr<detail::TraceBuffers> trace;  // with trace_tiles

  State(Runtime& r, const AllScatterShape& s, GemmAllScatterOptions o)
      : rt(r), shape(s), options(std::move(o)),
        plan(agreed_plan(r, s, options)), barrier(r) {}

  int world() const { return rt.world(); }
  std::int64_t shard_n() const { return shape.n / world(); }
  int elem_bytes() const { return gemm::dtype_bytes(shape.dtype); }
  void prepare(const void* a, const void* b, void* c);
  std::string operand_problem(const void* a, const void* b, const void* c) const;
  void check_c(const void* c, const std::string& problem);
  // The tiles the pushes walk: the GEMM's own (flags are indexed by its tile ids), or
  // after a plain GEMM (bulk_synchronous) a tiling of the shard.
  gemm::TileScheduler push_schedule() const {
    return plan.variant == ScatterVariant::bulk_synchronous
               ? gemm::TileScheduler::make(shape.m, shard_n(), shape.k, detail::kBulkTileM, detail::kBulkTileN, 64, 1, 1)
               : plan.gemm.sched;
  }
  std::vector<std::uint8_t*> targets(std::uint8_t* c_shard) const;
};

GemmAllScatter::GemmAllScatter(Runtime& rt, const AllScatterShape& shape, GemmAllScatterOptions options)
    : state_(std::make_unique<State>(rt, shape, std::move(options))) {
  State& s = *state_;
  const AllScatterPlan& plan = s.plan;
  // Collective, same sizes on every rank: all ranks made the same plan.
  const std::size_t flag_bytes = std::size_t(plan.tiles) * gemm::kConsumers * sizeof(std::uint64_t);
  s.tile_flags = static_cast<std::uint64_t*>(rt.heap().allocate(flag_bytes));
  symm::detail::memset_on_device(s.tile_flags, 0, flag_bytes, nullptr);
  for (int i = 0; i < s.options.loopback_peers; ++i) {
    const std::size_t bytes = std::size_t(shape.m) * shape.n * s.elem_bytes();
    s.loopback.push_back(rt.heap().allocate(bytes));
  }
  // What the launches take from the plan; operands are added by prepare().
  detail::FusedLaunch& f = s.launch;
  f.variant = plan.variant;
  f.config = plan.config;
  f.sm_count = rt.sm_count();
  f.gemm_blocks = plan.gemm_sms;
  f.grid = plan.gemm_sms + (plan.variant == ScatterVariant::wg_specialization ? plan.comm_sms : 0);
  f.check_residency = f.grid > f.gemm_blocks;
  if (has_push_role(plan.variant)) {
    // Copiers: the scatter kernel's blocks after a plain GEMM; with tile flags, the GEMM
    // blocks too (once their tiles are done), and the comm blocks or scatter blocks.
    s.tile_claims = DeviceBuffer(2 * sizeof(unsigned), "gemm_all_scatter tile claims");
    symm::detail::memset_on_device(s.tile_claims.get(), 0, 2 * sizeof(unsigned), nullptr);
    auto* counters = static_cast<unsigned*>(s.tile_claims.get());
    const int copiers = plan.variant == ScatterVariant::bulk_synchronous ? plan.comm_sms : plan.gemm_sms + plan.comm_sms;
    f.push.claims = {counters, counters + 1, copiers};
  }
  if (const gemm::WorkspaceLayout layout = gemm::workspace_layout(plan.gemm);
      plan.variant != ScatterVariant::bulk_synchronous && layout.total() > 0) {
    // Counters start at zero; each tile's finishing unit resets its own for the next run.
    s.split_workspace = DeviceBuffer(layout.total(), "gemm_all_scatter split-tile workspace");
    symm::detail::memset_on_device(s.split_workspace.get(), 0, layout.counter_bytes, nullptr);
    f.params.splitk.counters = static_cast<int*>(s.split_workspace.get());
    f.params.splitk.partials =
        reinterpret_cast<float*>(static_cast<char*>(s.split_workspace.get()) + layout.counter_bytes);
  }
  if (plan.variant == ScatterVariant::bulk_synchronous) {
    gemm::GemmOptions go;
    go.config = s.options.config;
    go.num_blocks = s.options.gemm_sms;
    go.gsize_m = s.options.gsize_m;
    go.split_tail = s.options.split_tail;
    s.gemm = std::make_unique<gemm::Gemm>(go);
  }
  if (s.options.trace_tiles) {
    const int tiles = std::max(plan.tiles, s.push_schedule().num_tiles());
    s.trace = std::make_unique<detail::TraceBuffers>(tiles, plan.gemm_sms + plan.comm_sms);
  }
  if (plan.variant == ScatterVariant::producer_consumer) s.side.emplace();
  if (plan.variant == ScatterVariant::producer_consumer || plan.variant == ScatterVariant::bulk_synchronous)
    detail::configure_scatter_kernel();
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize(gemm_all_scatter set-up)");
  if (s.options.verbose && rt.rank() == 0) std::fprintf(stderr, "%s\n", describe(shape, plan).c_str());
}

GemmAllScatter::~GemmAllScatter() = default;

const AllScatterPlan& GemmAllScatter::plan() const { return state_->plan; }
const AllScatterShape& GemmAllScatter::shape() const { return state_->shape; }
const std::vector<void*>& GemmAllScatter::loopback_buffers() const { return state_->loopback; }

// Every other copy of this rank's shard: the peers' C (nearest rank first, so the ranks'
// first pushes go to different GPUs), or the loopback buffers.
std::vector<std::uint8_t*> GemmAllScatter::State::targets(std::uint8_t* c_shard) const {
  std::vector<std::uint8_t*> out;
  for (int i = 1; i < world(); ++i) out.push_back(rt.heap().translate(c_shard, (rt.rank() + i) % world()));
  for (void* buffer : loopback) out.push_back(static_cast<std::uint8_t*>(buffer));
  return out;
}

namespace {

// Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte.
bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + b_bytes && y < x + a_bytes;
}

}  // namespace

// Why this rank cannot run with these operands, or empty (this rank's checks alone).
std::string GemmAllScatter::State::operand_problem(const void* a, const void* b, const void* c) const {
  if (!a || !b) return "symm gemm_all_scatter: A and B must be non-null device pointers";
  for (auto [name, operand] : {std::pair{"A", a}, {"B", b}})
    if (auto why = unreachable_from_device(operand, rt.device(), fmt::format("symm gemm_all_scatter: {}", name));
        !why.empty())
      return why;
  // TMA reads A and B in place (bulk_synchronous's library GEMM copies what it cannot)
  // and writes C.
  const bool tma_reads = plan.variant != ScatterVariant::bulk_synchronous;
  for (auto [name, operand, tma] : {std::tuple{"A", a, tma_reads}, {"B", b, tma_reads}, {"C", c, true}})
    if (tma && reinterpret_cast<std::uintptr_t>(operand) % 16 != 0)
      return fmt::format("symm gemm_all_scatter: {} ({}) is not 16-byte aligned, as the TMA copies that move it "
                         "need: pass the start of an allocation (the heap's factories and cudaMalloc give 256-byte "
                         "alignment) or a multiple of 16 bytes past it",
                         name, operand);
  // Peers write into C while this rank still reads A and B.
  const std::size_t c_bytes = std::size_t(shape.m) * shape.n * elem_bytes();
  const std::size_t a_bytes = std::size_t(shape.m) * shape.k * elem_bytes();
  const std::size_t b_bytes = std::size_t(shape.k) * shard_n() * elem_bytes();
  for (auto [name, operand, bytes] : {std::tuple{"A", a, a_bytes}, {"B", b, b_bytes}})
    if (c && overlap(operand, bytes, c, c_bytes))
      return fmt::format("symm gemm_all_scatter: {} ({}, {} bytes) overlaps C ({}, {} bytes), which the peers "
                         "write while this rank reads {}: give C memory of its own",
                         name, operand, bytes, c, c_bytes, name);
  return {};
}

// A C new to this op: on this rank's heap, and at the same offset on every rank (each
// rank's pushes land at its own offset in the peers' heaps). Collective: a rank whose C
// or operands are refused (`problem`) stops every rank here, so that none launches and
// waits for it.
void GemmAllScatter::State::check_c(const void* c, const std::string& problem) {
  if (std::find(agreed_c.begin(), agreed_c.end(), c) != agreed_c.end()) return;
  const std::size_t c_bytes = std::size_t(shape.m) * shape.n * elem_bytes();
  const bool on_heap = c && rt.heap().contains(c, c_bytes);
  const std::int64_t offset =
      on_heap && problem.empty() ? static_cast<const std::byte*>(c) - rt.heap().base() : detail::kRefused;
  detail::check_same_c_offset(
      rt.team(), offset,
      on_heap ? problem
              : fmt::format("symm gemm_all_scatter: C ({}, {} x {}) must lie on the symmetric heap, at the same "
                            "offset on every rank: allocate it with the heap's factories",
                            c, shape.m, shape.n));
  agreed_c.push_back(c);
}

void GemmAllScatter::State::prepare(const void* a, const void* b, void* c) {
  if (a == last_a && b == last_b && c == last_c) return;
  // Until this set of operands is fully prepared: a preparation that throws half-way must
  // not pass for done when the same operands come back.
  last_a = last_b = last_c = nullptr;
  const std::string problem = operand_problem(a, b, c);
  check_c(c, problem);
  if (!problem.empty()) throw Error(problem);  // a C run before: this rank alone refuses
  auto* c_shard = static_cast<std::uint8_t*>(c) + rt.rank() * shard_n() * elem_bytes();
  shard = gemm::GemmProblem{shape.m, shard_n(), shape.k, a, shape.k, b,
                            shape.b_layout == gemm::BLayout::kn ? shard_n() : shape.k,
                            shape.b_layout, c_shard, shape.n, shape.dtype, shape.dtype};

  detail::FusedLaunch& f = launch;
  if (plan.variant == ScatterVariant::bulk_synchronous) {
    plan.gemm = gemm->plan(shard);  // the library's plan for the shard on this GPU
    plan.config = plan.gemm.config;
    plan.gemm_sms = plan.gemm.num_blocks;
  } else {
    const gemm::OperandMaps maps = gemm::make_operand_maps(shard, plan.config);
    f.params.a = maps.a;
    f.params.b = maps.b;
    f.params.b_tail = maps.b_tail;
    f.params.c = maps.c;
    f.params.c_tail = maps.c_tail;
    f.params.sched = plan.gemm.sched;
    f.params.m = int(shard.m);
    f.params.n = int(shard.n);
    f.params.wait_timeout_ns = wait_timeout_ns;
    f.params.wait_record = static_cast<gemm::GemmWaitRecord*>(gemm_record.device());
  }
  const std::vector<std::uint8_t*> peers = targets(c_shard);
  detail::ShardTargets& t = f.push.targets;
  t.local = c_shard;
  t.peer_count = int(peers.size());
  for (std::size_t i = 0; i < peers.size(); ++i) t.peers[i] = peers[i];
  t.m = int(shape.m);
  t.n_shard = int(shard_n());
  t.ldc_bytes = shape.n * elem_bytes();
  t.elem_bytes = elem_bytes();
  f.peer_maps.count = 0;
  if (plan.variant == ScatterVariant::tma_push) {
    for (std::uint8_t* peer : peers) {
      gemm::GemmProblem there = shard;
      there.c = peer;
      const gemm::OperandMaps maps = gemm::make_operand_maps(there, plan.config);
      f.peer_maps.c[f.peer_maps.count] = maps.c;
      f.peer_maps.c_tail[f.peer_maps.count++] = maps.c_tail;
    }
  }
  f.push.sched = push_schedule();
  f.push.blk_m = plan.variant == ScatterVariant::bulk_synchronous ? detail::kBulkTileM : plan.config.blk_m;
  f.push.blk_n = plan.variant == ScatterVariant::bulk_synchronous ? detail::kBulkTileN : plan.config.blk_n;
  if (has_push_role(plan.variant)) {
    const int staging = detail::push_staging_bytes(plan.variant, plan.config);
    detail::PushMaps& maps = f.push.maps;
    maps.piece_rows = detail::push_piece_rows(f.push.blk_m, f.push.blk_n, elem_bytes(), staging);
    const auto map_of = [&](const void* base, const char* name) {
      return gemm::plain_box_map(base, shape.dtype, shape.m, shard_n(), shape.n, maps.piece_rows, f.push.blk_n, name);
    };
    maps.local = map_of(c_shard, "C shard (push pieces)");
    for (std::size_t i = 0; i < peers.size(); ++i) maps.peers[i] = map_of(peers[i], "peer C shard (push pieces)");
  }
  const bool flags = plan.variant == ScatterVariant::wg_specialization ||
                     plan.variant == ScatterVariant::producer_consumer;
  f.push.tile_flags = {flags ? tile_flags : nullptr, barrier.device_epoch()};
  f.push.wait = {static_cast<WaitFailureRecord*>(record.device()), rt.heap().base(), wait_timeout_ns, rt.rank()};
  if (trace) f.push.trace = trace->device();
  last_a = a;
  last_b = b;
  last_c = c;
}

void GemmAllScatter::run(const void* a, const void* b_shard, void* c, cudaStream_t stream) {
  State& s = *state_;
  if (!s.failed_run.empty())
    throw Error("symm gemm_all_scatter: an earlier run() failed after enqueueing part of its work, which leaves "
                "this op's flags and tile claims out of step with the other ranks: construct a new "
                "GemmAllScatter (on every rank). The earlier failure: " +
                s.failed_run);
  try {
    enqueue(a, b_shard, c, stream);
  } catch (const Error& e) {
    if (s.partly_enqueued) s.failed_run = e.what();
    // A launch check may be the first to see an earlier run's trap: say why it trapped.
    const std::string report = failure_report();
    if (report.empty()) throw;
    throw Error(std::string(e.what()) + "\n" + report);
  }
}

void GemmAllScatter::enqueue(const void* a, const void* b_shard, void* c, cudaStream_t stream) {
  State& s = *state_;
  s.partly_enqueued = false;
  s.prepare(a, b_shard, c);
  if (s.trace) s.trace->reset(stream);
  const detail::FusedLaunch& f = s.launch;
  switch (s.plan.variant) {
    case ScatterVariant::tma_push:
    case ScatterVariant::fused_sequential:
    case ScatterVariant::wg_specialization:
      detail::launch_fused(s.shape.dtype, s.shape.b_layout, f, stream);
      s.partly_enqueued = true;
      s.launch.check_residency = false;  // occupancy does not change: asked once
      break;
    case ScatterVariant::producer_consumer:
      // The scatter stream starts after everything before run() on the caller's stream
      // (the last barrier's epoch included), and the caller's stream resumes after both.
      order_after(s.side->stream.get(), stream, s.side->fork.get());
      detail::launch_fused(s.shape.dtype, s.shape.b_layout, f, stream);
      s.partly_enqueued = true;
      detail::launch_scatter(f.push, s.plan.comm_sms, s.plan.gemm_sms, s.side->stream.get());
      order_after(stream, s.side->stream.get(), s.side->join.get());
      break;
    case ScatterVariant::bulk_synchronous:
      s.gemm->run(s.shard, s.plan.gemm, stream);
      s.partly_enqueued = true;
      detail::launch_scatter(f.push, s.plan.comm_sms, 0, stream);  // one per SM (kScatterSmemBytes)
      break;
  }
  s.barrier.wait(stream, s.trace ? s.trace->device().barrier_exit : nullptr);
}

std::vector<TileEvent> GemmAllScatter::tile_events() const {
  const State& s = *state_;
  if (!s.trace) return {};
  return s.trace->events(s.plan.variant == ScatterVariant::tma_push);
}

std::string_view to_string(TileEvent::Kind kind) {
  switch (kind) {
    case TileEvent::Kind::compute: return "compute";
    case TileEvent::Kind::push: return "push";
    case TileEvent::Kind::drain: return "drain";
  }
  return "?";
}

std::string GemmAllScatter::failure_report() const {
  const State& s = *state_;
  std::string report;
  const volatile WaitFailureRecord* r = static_cast<const volatile WaitFailureRecord*>(s.record.host());
  if (r->claimed == 2 && r->flag_offset == WaitFailureRecord::kNoFlag)
    report = fmt::format("symm gemm_all_scatter: rank {} block {} timed out after {} ms (SYMM_WAIT_TIMEOUT_MS) "
                         "waiting for its TMA copies through shared memory at tile {} (a load that never "
                         "landed, or stores that never read their slot; tile -1: its first piece)",
                         r->rank, r->block, r->waited_ns / 1'000'000, r->tile);
  else if (r->claimed == 2)
    report = fmt::format("symm gemm_all_scatter: rank {} block {} timed out waiting for tile {} after {} ms "
                         "(SYMM_WAIT_TIMEOUT_MS): flag at heap offset {} saw {}, expected >= {}",
                         r->rank, r->block, r->tile, r->waited_ns / 1'000'000, r->flag_offset, r->seen,
                         r->expected);
  // The GEMM's part: the library GEMM's record (bulk_synchronous), or the fused kernel's.
  const std::string gemm_line =
      s.gemm ? s.gemm->failure_report() : gemm::describe(gemm::read_wait_record(s.gemm_record.host()));
  if (!gemm_line.empty())
    report += fmt::format("{}symm gemm_all_scatter: rank {}'s GEMM blocks: {}", report.empty() ? "" : "\n",
                          s.rt.rank(), gemm_line);
  return report;
}

}  // namespace symm::ops
