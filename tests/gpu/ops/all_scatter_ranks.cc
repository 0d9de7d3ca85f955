#include "all_scatter_ranks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <vector>

#include "symm/gemm/gemm.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/tensor.hpp"

namespace symm::test {
namespace {

// One input set: A and every rank's B shard (every rank makes them all, from the same
// seeds, so each can compute every shard's reference), and the reference C.
struct InputSet {
  void* a = nullptr;
  std::vector<void*> b;  // by rank
  void* reference = nullptr;
};

template <class T>
InputSet make_inputs(Runtime& rt, const ops::AllScatterShape& s, std::uint64_t seed, cudaStream_t stream) {
  const std::int64_t n_shard = s.n / rt.world();
  InputSet in;
  in.a = randn<T>(rt.heap(), {s.m, s.k}, seed, stream).data;
  for (int r = 0; r < rt.world(); ++r)
    in.b.push_back(randn<T>(rt.heap(), {s.k, n_shard}, seed + 1 + r, stream).data);
  in.reference = empty<T>(rt.heap(), {s.m, s.n}, stream).data;
  return in;
}

InputSet make_inputs(Runtime& rt, const ops::AllScatterShape& s, std::uint64_t seed, cudaStream_t stream) {
  return s.dtype == gemm::DType::fp16 ? make_inputs<fp16>(rt, s, seed, stream)
                                      : make_inputs<bf16>(rt, s, seed, stream);
}

// Our GEMM alone, with the op's plan, on every shard: what C must hold bit for bit.
void compute_reference(const ops::AllScatterShape& s, const gemm::Plan& plan, InputSet& in, int world,
                       cudaStream_t stream) {
  const std::int64_t n_shard = s.n / world;
  const int bytes = gemm::dtype_bytes(s.dtype);
  gemm::Gemm gemm(gemm::GemmOptions{});
  for (int r = 0; r < world; ++r) {
    const gemm::GemmProblem p{s.m, n_shard, s.k, in.a, s.k, in.b[r],
                              s.b_layout == gemm::BLayout::kn ? n_shard : s.k, s.b_layout,
                              static_cast<char*>(in.reference) + r * n_shard * bytes, s.n, s.dtype, s.dtype};
    gemm.run(p, plan, stream);
  }
}

std::vector<std::uint8_t> to_host(const void* device, std::size_t bytes) {
  std::vector<std::uint8_t> host(bytes);
  SYMM_CUDA_CHECK(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost));
  return host;
}

// Elements of `c` that differ from `reference` in any bit (NaN poison included).
std::size_t wrong_elements(const std::vector<std::uint8_t>& c, const std::vector<std::uint8_t>& reference) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < c.size(); i += 2) wrong += std::memcmp(&c[i], &reference[i], 2) != 0;
  return wrong;
}

// Elements of `c` still holding the all-ones poison (2-byte elements).
std::size_t poisoned_elements(const std::vector<std::uint8_t>& c) {
  std::size_t poisoned = 0;
  for (std::size_t i = 0; i + 1 < c.size(); i += 2) poisoned += c[i] == 0xFF && c[i + 1] == 0xFF;
  return poisoned;
}

// Whether `body` threw a symm::Error whose message holds `part` (printed where it did not).
template <class Body>
bool refused_with(const char* what, const char* part, Body&& body) {
  try {
    body();
    std::printf("%s was not refused\n", what);
  } catch (const Error& e) {
    if (std::strstr(e.what(), part) != nullptr) return true;
    std::printf("%s refused for another reason: %s\n", what, e.what());
  }
  return false;
}

}  // namespace

int all_scatter_matches_gemm_alone(Runtime& rt, const ScatterCase& c) {
  Failures failures("gemm_all_scatter");
  cudaStream_t stream = nullptr;
  SYMM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    HeapScope scope(rt.heap());
    const ops::AllScatterShape& s = c.shape;
    const std::size_t c_bytes = std::size_t(s.m) * s.n * gemm::dtype_bytes(s.dtype);
    std::array<InputSet, 2> sets{make_inputs(rt, s, 11, stream), make_inputs(rt, s, 23, stream)};
    void* out = empty<bf16>(rt.heap(), {s.m, s.n}, stream).data;  // bf16 and fp16: 2 bytes
    ops::GemmAllScatter op(rt, s, c.options);
    const int me = rt.rank();
    std::array<cudaGraphExec_t, 2> graphs{};
    for (int i = 0; i < 2 && c.graph; ++i) {
      cudaGraph_t graph = nullptr;
      SYMM_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      op.run(sets[i].a, sets[i].b[me], out, stream);
      SYMM_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
      SYMM_CUDA_CHECK(cudaGraphInstantiate(&graphs[i], graph, 0));
      SYMM_CUDA_CHECK(cudaGraphDestroy(graph));
    }
    for (int it = 0; it < c.iterations; ++it) {
      InputSet& in = sets[it % 2];
      std::vector<void*> copies{out};
      for (void* l : op.loopback_buffers()) copies.push_back(l);
      for (void* copy : copies) symm::detail::memset_on_device(copy, 0xFF, c_bytes, stream);
      rt.barrier(stream);  // no rank pushes into a C before its owner poisoned it
      if (c.graph)
        SYMM_CUDA_CHECK(cudaGraphLaunch(graphs[it % 2], stream));
      else
        op.run(in.a, in.b[me], out, stream);
      if (it < 2) compute_reference(s, op.plan().gemm, in, rt.world(), stream);  // after run: bulk plans there
      try {
        // Only this rank's stream: the op's own barrier must have waited for every peer's
        // pushes (a host barrier here would hide a barrier that does not wait).
        SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
      } catch (const Error&) {
        if (auto report = op.failure_report(); !report.empty()) std::fprintf(stderr, "%s\n", report.c_str());
        throw;
      }
      const auto reference = to_host(in.reference, c_bytes);
      // The reference starts as the same NaN poison as C: an element neither writes (a
      // tile the shared schedule drops) would match. Finite operands give no NaN.
      const std::size_t unwritten = poisoned_elements(reference);
      failures.check(unwritten == 0, fmt::format("iteration {} rank {}: {} of {} elements of the reference were "
                                                 "never written by our GEMM alone",
                                                 it, me, unwritten, c_bytes / 2));
      for (std::size_t i = 0; i < copies.size(); ++i) {
        const std::size_t wrong = wrong_elements(to_host(copies[i], c_bytes), reference);
        failures.check(wrong == 0, fmt::format("{} iteration {} rank {} copy {}: {} of {} elements differ "
                                               "from our GEMM alone",
                                               ops::to_string(op.plan().variant), it, me, i, wrong,
                                               c_bytes / 2));
      }
      if (failures.count() > 0) break;
    }
    for (cudaGraphExec_t g : graphs)
      if (g) SYMM_CUDA_CHECK(cudaGraphExecDestroy(g));
    rt.barrier(stream);
  }
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
  return failures.exit_code();
}

int comm_wait_times_out(Runtime& rt) {
  cudaStream_t stream = nullptr;
  SYMM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // A first tile of 2 x 128 x 256 x 2^19 flops: milliseconds on one SM, over the budget.
  const ops::AllScatterShape s{256, 256, std::int64_t{1} << 19, gemm::DType::bf16, gemm::BLayout::kn};
  auto a = randn<bf16>(rt.heap(), {s.m, s.k}, 1, stream);
  auto b = randn<bf16>(rt.heap(), {s.k, s.n}, 2, stream);
  auto c = empty<bf16>(rt.heap(), {s.m, s.n}, stream);
  ops::GemmAllScatterOptions o;
  o.variant = ops::ScatterVariant::wg_specialization;
  o.config = gemm::KernelConfig{128, 256, 64, 4};
  o.gemm_sms = 1;  // block 0 computes the tiles, block 1 waits for them
  o.num_sms = 2;
  o.loopback_peers = 1;
  ops::GemmAllScatter op(rt, s, o);
  try {
    op.run(a.data, b.data, c.data, stream);
    SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
  } catch (const Error& e) {
    std::printf("run failed: %s\n%s\n", e.what(), op.failure_report().c_str());
    std::fflush(stdout);
    return 3;
  }
  return 0;
}

int operands_overlapping_c_are_refused(Runtime& rt) {
  cudaStream_t stream = nullptr;
  SYMM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const ops::AllScatterShape s{256, 256, 128, gemm::DType::bf16, gemm::BLayout::kn};
  auto a = randn<bf16>(rt.heap(), {s.m, s.k}, 1, stream);
  auto b = randn<bf16>(rt.heap(), {s.k, s.n}, 2, stream);
  auto c = empty<bf16>(rt.heap(), {s.m, s.n}, stream);
  ops::GemmAllScatterOptions o;
  o.loopback_peers = 1;
  ops::GemmAllScatter op(rt, s, o);
  const bf16* a_in_c = c.data + s.n;  // rows of C
  if (!refused_with("A inside C", "overlaps C", [&] { op.run(a_in_c, b.data, c.data, stream); })) return 1;
  op.run(a.data, b.data, c.data, stream);  // nothing was launched: the op runs on
  SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return 0;
}

namespace {

// The failure tests' small problem: A, this rank's B shard and C, on the heap.
struct SmallProblem {
  ops::AllScatterShape shape{256, 512, 256, gemm::DType::bf16, gemm::BLayout::kn};
  cudaStream_t stream = nullptr;
  bf16 *a = nullptr, *b = nullptr, *c = nullptr;

  explicit SmallProblem(Runtime& rt) {
    SYMM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    a = randn<bf16>(rt.heap(), {shape.m, shape.k}, 1, stream).data;
    b = randn<bf16>(rt.heap(), {shape.k, shape.n / rt.world()}, 2, stream).data;
    c = empty<bf16>(rt.heap(), {shape.m, shape.n}, stream).data;
  }
  // Into `into`, with A (or `other_a`).
  void run(ops::GemmAllScatter& op, bf16* into, const bf16* other_a = nullptr) const {
    op.run(other_a ? other_a : a, b, into, stream);
    SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));  // throws once a timed-out wait traps
  }
};

}  // namespace

int peer_never_arrives(Runtime& rt) {
  const SmallProblem p(rt);
  ops::GemmAllScatter op(rt, p.shape, {});
  p.run(op, p.c);  // together once: the first run into C checks its offset on the host
  rt.team().barrier();
  if (rt.rank() == 0) {
    p.run(op, p.c);
    return 0;
  }
  rt.team().barrier();  // rank 1 never runs the op again; this ends when rank 0 is gone
  return 0;
}

int ranks_given_different_shapes_all_refuse(Runtime& rt) {
  const SmallProblem p(rt);
  ops::AllScatterShape mine = p.shape;
  mine.m += 64 * rt.rank();
  if (!refused_with("a rank's other M", "different shapes: M is 256 on rank 0 and 320 on rank 1",
                    [&] { ops::GemmAllScatter op(rt, mine, {}); }))
    return 1;
  ops::GemmAllScatter op(rt, p.shape, {});  // nothing was allocated: the same shape runs
  p.run(op, p.c);
  return 0;
}

int c_at_another_offset_is_refused_on_every_rank(Runtime& rt) {
  const SmallProblem p(rt);
  bf16* other_c = empty<bf16>(rt.heap(), {p.shape.m, p.shape.n}, p.stream).data;
  ops::GemmAllScatter op(rt, p.shape, {});
  if (!refused_with("C at another offset on rank 1", "on rank 1; the peers store into C at this rank's offset",
                    [&] { p.run(op, rt.rank() == 1 ? other_c : p.c); }))
    return 1;
  p.run(op, p.c);  // refused before any launch, on every rank: the same C then runs
  return 0;
}

int misaligned_a_on_one_rank_stops_every_rank(Runtime& rt) {
  const SmallProblem p(rt);
  ops::GemmAllScatter op(rt, p.shape, {});
  const bf16* a = rt.rank() == 1 ? p.a + 1 : p.a;  // 2 bytes past a 16-byte boundary on rank 1
  const char* expected = rt.rank() == 1 ? "is not 16-byte aligned" : "rank 1 refused its C or operands";
  if (!refused_with("A misaligned on rank 1", expected, [&] { p.run(op, p.c, a); })) return 1;
  p.run(op, p.c);  // nothing launched anywhere: the aligned operands then run
  return 0;
}

int host_a_on_one_rank_stops_every_rank(Runtime& rt) {
  const SmallProblem p(rt);
  ops::GemmAllScatter op(rt, p.shape, {});
  // malloc'd memory: a kernel reading it faults, ending the context on that rank.
  const std::vector<bf16> host(std::size_t(p.shape.m) * p.shape.k);
  const bf16* a = rt.rank() == 1 ? host.data() : p.a;
  const char* expected = rt.rank() == 1 ? "cannot reach" : "rank 1 refused its C or operands";
  if (!refused_with("A in host memory on rank 1", expected, [&] { p.run(op, p.c, a); })) return 1;
  p.run(op, p.c);  // nothing launched anywhere: device operands then run
  return 0;
}

// Whether the block's tile `tile` (TileInfo::tile: unit x cluster blocks + rank) lies in
// the shard: a cluster's unit may reach past M or N.
bool tile_inside(const ops::AllScatterPlan& plan, std::int64_t m, std::int64_t n_shard, int tile) {
  const gemm::KernelConfig& c = plan.config;
  int unit_m = 0, unit_n = 0;
  plan.gemm.sched.tile_coords(tile / c.cluster_blocks(), unit_m, unit_n);
  const gemm::ClusterSeat seat = gemm::cluster_seat(tile % c.cluster_blocks(), c.cluster_m);
  return std::int64_t(gemm::cluster_tile(unit_m, c.cluster_m, seat.m)) * c.blk_m < m &&
         std::int64_t(gemm::cluster_tile(unit_n, c.cluster_n, seat.n)) * c.blk_n < n_shard;
}

int traced_run_covers_every_tile(Runtime& rt, ops::GemmAllScatterOptions o, bool gemm_blocks_push) {
  Failures failures("tile trace");
  cudaStream_t stream = nullptr;
  SYMM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    HeapScope scope(rt.heap());
    const ops::AllScatterShape s{1000, 1536 * std::int64_t(rt.world()), 1024, gemm::DType::bf16,
                                 gemm::BLayout::kn};
    auto a = randn<bf16>(rt.heap(), {s.m, s.k}, 1, stream);
    auto b = randn<bf16>(rt.heap(), {s.k, s.n / rt.world()}, 2, stream);
    auto c = empty<bf16>(rt.heap(), {s.m, s.n}, stream);
    const ops::ScatterVariant variant = o.variant.value_or(ops::ScatterVariant::tma_push);
    o.trace_tiles = true;
    ops::GemmAllScatter op(rt, s, o);
    for (int run = 0; run < 2; ++run) op.run(a.data, b.data, c.data, stream);  // the second is read
    SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<ops::TileEvent> events = op.tile_events();
    const bool bulk = variant == ops::ScatterVariant::bulk_synchronous;  // the library GEMM: no hooks
    const int tiles = op.plan().tiles;
    std::vector<int> computed(tiles, 0), pushed(std::max(tiles, 4096), 0);
    int drains = 0, pushed_by_gemm_blocks = 0;
    for (const ops::TileEvent& e : events) {
      failures.check(e.begin_us <= e.end_us && e.end_us <= 0.0 && e.begin_us > -1e6,
                     fmt::format("{} tile {} block {}: span [{}, {}] us", ops::to_string(e.kind), e.tile,
                                 e.block, e.begin_us, e.end_us));
      if (e.kind == ops::TileEvent::Kind::compute && e.tile < tiles) ++computed[e.tile];
      if (e.kind == ops::TileEvent::Kind::push && e.tile < int(pushed.size())) ++pushed[e.tile];
      pushed_by_gemm_blocks += e.kind == ops::TileEvent::Kind::push && e.block < op.plan().gemm_sms;
      drains += e.kind == ops::TileEvent::Kind::drain;
    }
    const int consumers = op.plan().config.consumers();
    for (int t = 0; t < tiles && !bulk; ++t) {
      const int expected = tile_inside(op.plan(), s.m, s.n / rt.world(), t) ? consumers : 0;
      failures.check(computed[t] == expected,
                     fmt::format("tile {} computed {} times, expected {}", t, computed[t], expected));
    }
    const bool pushes = variant != ops::ScatterVariant::tma_push;
    const int per_tile = variant == ops::ScatterVariant::fused_sequential ? gemm::kConsumers : 1;
    if (pushes && !bulk)
      for (int t = 0; t < tiles; ++t)
        failures.check(pushed[t] == per_tile, fmt::format("tile {} pushed {} times", t, pushed[t]));
    if (bulk) {  // the scatter's own tiling of the shard: ids 0, 1, ... each pushed once
      const int covered = int(std::find(pushed.begin(), pushed.end(), 0) - pushed.begin());
      failures.check(covered > 0, "bulk_synchronous pushed no tile");
      for (int t = 0; t < int(pushed.size()); ++t)
        failures.check(pushed[t] == (t < covered ? 1 : 0),
                       fmt::format("bulk_synchronous tile {} pushed {} times ({} tiles pushed)", t, pushed[t], covered));
    }
    failures.check((drains > 0) == (variant == ops::ScatterVariant::tma_push),
                   fmt::format("{} drain events", drains));
    if (gemm_blocks_push)
      failures.check(pushed_by_gemm_blocks > 0,
                     fmt::format("no tile of {} pushed by the {} GEMM blocks (copy blocks: {})", tiles,
                                 op.plan().gemm_sms, op.plan().comm_sms));
  }
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
  return failures.exit_code();
}

}  // namespace symm::test
