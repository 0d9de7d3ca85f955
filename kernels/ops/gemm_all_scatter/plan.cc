// Planning GEMM + all-scatter: pure host logic over the shape, the options, the world and
// the SM count (the cpu tier tests it), so every refusal comes before any launch.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "configs.hpp"
#include "symm/common/error.hpp"
#include "symm/gemm/plan.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::ops {
namespace {

constexpr int kDefaultCommSms = 8;  // producer_consumer: Iris's scatter blocks beside the GEMM

// What the copy blocks' default count is sized by (one H200, the one-GPU proxy,
// docs/gemm-all-scatter.md): a block copying C while the GEMM runs moved about 12 GB/s
// (4 comm blocks, 58.7 MB in 1.19 ms, 16-byte vectors; with the two-warp TMA push, which
// moves 40 GB/s per block once the GEMM is done, model rates of 16-32 GB/s, i.e. fewer
// blocks, all ran no faster), and an SM computes about 5.3 TFLOP/s of 16-bit GEMM
// (700 TFLOP/s over 132 SMs).
constexpr double kCopyBytesPerSecondPerBlock = 12e9;
constexpr double kGemmFlopsPerSecondPerSm = 5.3e12;

// Copy blocks (wg_specialization's comm blocks, producer_consumer's scatter kernel) that
// push this rank's shard of C to every peer in about the time the other `sms - copy` SMs
// take to compute it, from 1 to half the SMs: for peers on other GPUs, where what is left
// when the GEMM ends moves at the link's rate, however many blocks join the push then.
// Where K is a few thousand, Iris's 4 of 132 copied C 2.4-5.8x slower than the GEMM made
// it; on its own long-K shards 2 would do.
int copy_blocks_to_keep_pace(const AllScatterShape& s, int world, int peers, int sms) {
  const double shard_elems = double(s.m) * double(s.n / world);
  const double bytes = shard_elems * gemm::dtype_bytes(s.dtype) * peers;
  const double flops = 2.0 * shard_elems * double(s.k);
  // Copy blocks per GEMM block: copy time c / r_copy = GEMM time g / r_sm for the same work.
  const double per_gemm_block = bytes * kGemmFlopsPerSecondPerSm / (flops * kCopyBytesPerSecondPerBlock);
  const int blocks = int(std::ceil(sms * per_gemm_block / (1.0 + per_gemm_block)));
  return std::clamp(blocks, 1, std::max(1, sms / 2));
}

// Copy blocks where the targets are loopback buffers in this GPU's memory, which the GEMM
// reads and writes too: the GEMM blocks join the push once their tiles are done
// (push_tiles.cuh) and copy what is left at that memory's rate, so copying during the
// GEMM gains little and every SM it takes costs (one H200, 2000 x 4000 x 3000: 17 copy
// blocks ran 1.37x of the GEMM alone, 4 ran 1.17x, 1 and 2 alike;
// bench/results/all-scatter/2026-12-04-gemm-blocks-join). Of 1 to kMaxLoopbackCopyBlocks,
// the count whose GEMM on the other SMs the GEMM's cost model predicts fastest, the most
// where several tie (the GEMM's waves need no more SMs: they copy for free).
constexpr int kMaxLoopbackCopyBlocks = 8;
int loopback_copy_blocks(const gemm::GemmProblem& shard, gemm::GemmOptions go, const gemm::DeviceLimits& limits,
                         int sms) {
  int best = 1;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int copy = 1; copy <= std::min(kMaxLoopbackCopyBlocks, sms / 2); ++copy) {
    go.num_blocks = sms - copy;
    const gemm::Plan p = gemm::make_plan(shard, go, limits);
    const double cost = gemm::predicted_cost(p.config, p.sched, p.num_blocks, shard.b_layout);
    if (cost <= best_cost * 1.001) best = copy;
    best_cost = std::min(best_cost, cost);
  }
  return best;
}

// The GEMM problem of one rank's shard, with placeholder operands (planning is pure).
gemm::GemmProblem shard_problem(const AllScatterShape& s, int world) {
  static char placeholder alignas(256)[256];
  gemm::GemmProblem p;
  p.m = s.m;
  p.n = s.n / world;
  p.k = s.k;
  p.a = p.b = p.c = placeholder;
  p.lda = s.k;
  p.b_layout = s.b_layout;
  p.ldb = s.b_layout == gemm::BLayout::kn ? p.n : s.k;
  p.ldc = s.n;
  p.in_dtype = p.out_dtype = s.dtype;
  return p;
}

// What the verbose plan line says of the copy blocks chosen for loopback peers.
std::string loopback_copy_blocks_note(int blocks, const char* knob) {
  return fmt::format("; {} copy blocks: into loopback buffers, the most of 1 to {} that the GEMM's waves on the "
                     "other SMs spare (give {} to choose)",
                     blocks, kMaxLoopbackCopyBlocks, knob);
}

// What the verbose plan line says when the copy blocks outnumber Iris's default.
std::string copy_blocks_note(int blocks, int iris, const char* knob) {
  return fmt::format("; {} copy blocks where Iris's default has {}: as many as copy C to the peers while "
                     "the GEMM computes it (give {} to choose)",
                     blocks, iris, knob);
}

}  // namespace

std::string_view to_string(ScatterVariant v) {
  switch (v) {
    case ScatterVariant::tma_push: return "tma_push";
    case ScatterVariant::wg_specialization: return "wg_specialization";
    case ScatterVariant::fused_sequential: return "fused_sequential";
    case ScatterVariant::producer_consumer: return "producer_consumer";
    case ScatterVariant::bulk_synchronous: return "bulk_synchronous";
  }
  return "?";
}

std::optional<ScatterVariant> parse_variant(std::string_view name) {
  for (ScatterVariant v : kScatterVariants)
    if (to_string(v) == name) return v;
  return std::nullopt;
}

std::string validate(const AllScatterShape& s, int world) {
  if (world < 1 || world > kMaxWorld)
    return fmt::format("{} ranks: GEMM + all-scatter runs on 1 to {} ranks", world, kMaxWorld);
  if (s.m < 1 || s.n < 1 || s.k < 1)
    return fmt::format("M, N and K must be >= 1 (got M={} N={} K={})", s.m, s.n, s.k);
  if (s.m > gemm::kMaxExtent || s.n > gemm::kMaxExtent || s.k > gemm::kMaxExtent)
    return fmt::format("M, N and K must be below 2^31 (got M={} N={} K={})", s.m, s.n, s.k);
  if (s.dtype != gemm::DType::bf16 && s.dtype != gemm::DType::fp16)
    return fmt::format("datatype {} is not supported: give bf16 or fp16", gemm::to_string(s.dtype));
  if (s.n % world != 0)
    return fmt::format("N={} is not divisible by the {} ranks: give N a multiple of {}", s.n, world, world);
  if ((s.n / world) % 8 != 0)
    return fmt::format("each rank's shard of N is N/world = {} columns, which must be a multiple of 8 "
                       "(16-byte rows for TMA and vector copies): give N a multiple of {}",
                       s.n / world, 8 * world);
  if (s.k % 8 != 0)
    return fmt::format("K={} must be a multiple of 8 (TMA reads A and B in 16-byte rows)", s.k);
  return {};
}

std::string validate(const GemmAllScatterOptions& o, int world, int sm_count) {
  auto range = [&](const char* name, int v) -> std::string {
    if (v < 0 || v > sm_count)
      return fmt::format("{} must be between 1 and the {} SMs of this GPU, or 0 for the default (got {})",
                         name, sm_count, v);
    return {};
  };
  for (auto [name, v] : {std::pair{"gemm_sms", o.gemm_sms}, {"num_sms", o.num_sms}, {"comm_sms", o.comm_sms}})
    if (auto why = range(name, v); !why.empty()) return why;
  if (o.gsize_m < 1) return fmt::format("gsize_m must be >= 1 (got {})", o.gsize_m);
  if (o.split_tail < -1 || o.split_tail > 1)
    return fmt::format("split_tail must be -1 (the GEMM's heuristic), 0 (never) or 1 (always) (got {})",
                       o.split_tail);
  if (o.loopback_peers < 0 || o.loopback_peers > kMaxWorld - 1)
    return fmt::format("loopback_peers must be between 0 and {} (got {})", kMaxWorld - 1, o.loopback_peers);
  if (o.loopback_peers > 0 && world != 1)
    return fmt::format("loopback_peers stands for peers on one GPU and needs 1 rank (got {} ranks)", world);
  return {};
}

AllScatterPlan make_plan(const AllScatterShape& shape, const GemmAllScatterOptions& o, int world,
                         int sm_count) {
  gemm::DeviceLimits limits;
  limits.sm_count = sm_count;
  return make_plan(shape, o, world, limits);
}

AllScatterPlan make_plan(const AllScatterShape& shape, const GemmAllScatterOptions& o, int world,
                         const gemm::DeviceLimits& limits) {
  const int sm_count = limits.sm_count;
  if (auto why = validate(shape, world); !why.empty()) throw Error("symm gemm_all_scatter: " + why);
  if (auto why = validate(o, world, sm_count); !why.empty()) throw Error("symm gemm_all_scatter: " + why);
  AllScatterPlan plan;
  plan.peers = world > 1 ? world - 1 : o.loopback_peers;
  plan.gsize_m = o.gsize_m;
  plan.variant = o.variant.value_or(ScatterVariant::tma_push);
  plan.reason = o.variant ? "variant given"
                          : "default: tma_push (the fastest variant in docs/gemm-all-scatter.md: "
                            "no comm SMs, no re-read of C)";
  const bool fused = plan.variant != ScatterVariant::bulk_synchronous;
  // The flag and copy variants: cooperative row halves without clusters (configs.hpp).
  const bool publishes_row_halves = fused && plan.variant != ScatterVariant::tma_push;
  if (fused && o.config && !detail::built_for(plan.variant, *o.config))
    throw Error(fmt::format("symm gemm_all_scatter: configuration {} is not built for {}{}; built: {}",
                            gemm::to_string(*o.config), to_string(plan.variant),
                            publishes_row_halves ? " (cooperative tiles of two row halves, no clusters; "
                                                   "tma_push runs every configuration)"
                                                 : "",
                            gemm::config_names(detail::built_configs(plan.variant))));

  const bool whole_tiles = !detail::finishes_split_tiles(plan.variant);
  if (whole_tiles && o.split_tail == 1)
    throw Error(fmt::format("symm gemm_all_scatter: {} computes whole tiles, so split_tail=1 (split the "
                            "last wave's tiles along K) cannot apply: give split_tail -1 or 0, or another "
                            "variant",
                            to_string(plan.variant)));
  gemm::GemmOptions go;  // the shard's GEMM (num_blocks: below)
  go.config = o.config;
  go.gsize_m = o.gsize_m;
  go.k_splits = whole_tiles ? 1 : 0;
  go.split_tail = whole_tiles ? 0 : o.split_tail;
  go.pingpong = publishes_row_halves ? 0 : -1;
  go.clusters = publishes_row_halves ? 0 : -1;
  go.operand_copies = !fused;  // the fused kernels read A and B and write C in place
  const gemm::GemmProblem shard = shard_problem(shape, world);

  // Blocks: who computes, who pushes. One rank pushes only into loopback buffers, where
  // the copy blocks are what the GEMM's waves spare; towards peers on other GPUs, as many
  // as keep pace with the GEMM.
  const bool loopback = world == 1;
  int gemm_sms = o.gemm_sms > 0 ? o.gemm_sms : sm_count;
  int grid = 0;
  switch (plan.variant) {
    case ScatterVariant::wg_specialization: {
      grid = o.num_sms > 0 ? o.num_sms : sm_count;
      // Iris's rule (the largest power of two below the grid computes), with more comm
      // blocks where that many would fall behind the GEMM; into loopback buffers, what the
      // GEMM's waves spare.
      if (o.gemm_sms == 0 && loopback && grid > 1) {
        gemm_sms = grid - loopback_copy_blocks(shard, go, limits, grid);
        plan.reason += loopback_copy_blocks_note(grid - gemm_sms, "num_sms - gemm_sms");
      } else if (o.gemm_sms == 0) {
        const int iris = grid > 1 ? int(std::bit_floor(unsigned(grid - 1))) : 0;  // 0: refused below
        gemm_sms = std::min(iris, grid - copy_blocks_to_keep_pace(shape, world, plan.peers, grid));
        if (gemm_sms < iris) plan.reason += copy_blocks_note(grid - gemm_sms, grid - iris, "num_sms - gemm_sms");
      }
      if (gemm_sms >= grid)
        throw Error(fmt::format("symm gemm_all_scatter: wg_specialization needs gemm_sms ({}) below num_sms ({}): "
                                "the blocks beyond gemm_sms push the tiles, and with none left nothing "
                                "would (lower --gemm_sms or raise --num_sms)",
                                gemm_sms, grid));
      if (gemm_sms < 1)
        throw Error(fmt::format("symm gemm_all_scatter: wg_specialization needs num_sms >= 2 (got {})", grid));
      break;
    }
    case ScatterVariant::producer_consumer: {
      // Given: as given. Else Iris's 8, or more to keep pace, but no more than the SMs a
      // given gemm_sms leaves (one that leaves fewer than 8 is refused below); into
      // loopback buffers, what the GEMM's waves spare.
      const bool spare = o.gemm_sms == 0 && loopback && sm_count > 1;
      int comm = spare ? loopback_copy_blocks(shard, go, limits, sm_count)
                       : std::max(kDefaultCommSms, copy_blocks_to_keep_pace(shape, world, plan.peers, sm_count));
      if (o.gemm_sms > 0) comm = std::max(kDefaultCommSms, std::min(comm, sm_count - o.gemm_sms));
      plan.comm_sms = o.comm_sms > 0 ? o.comm_sms : std::min(comm, sm_count - 1);
      if (o.comm_sms == 0 && spare)
        plan.reason += loopback_copy_blocks_note(plan.comm_sms, "comm_sms");
      else if (o.comm_sms == 0 && plan.comm_sms > kDefaultCommSms)
        plan.reason += copy_blocks_note(plan.comm_sms, kDefaultCommSms, "comm_sms");
      if (o.gemm_sms == 0) gemm_sms = sm_count - plan.comm_sms;
      if (gemm_sms < 1 || gemm_sms + plan.comm_sms > sm_count)
        throw Error(fmt::format("symm gemm_all_scatter: producer_consumer runs its GEMM ({} blocks) and its "
                                "scatter kernel ({} blocks) at once, and the scatter waits for the GEMM: "
                                "together they must fit the {} SMs (lower --gemm_sms or --comm_sms)",
                                gemm_sms, plan.comm_sms, sm_count));
      break;
    }
    default:
      break;
  }

  // The GEMM of the local shard, cut as the GEMM alone would cut it (whole tiles, or some
  // split along K and published by the unit that finishes them) where the variant's hook
  // finishes split tiles; fused_sequential computes whole tiles. tma_push runs any tile and
  // cluster (one ping-pong consumer's stores and pushes then overlap the other's wgmmas),
  // the other fused variants cooperative tiles without clusters (configs.hpp).
  // bulk_synchronous runs the library's GEMM as planned for the shard alone.
  go.num_blocks = fused ? gemm_sms : o.gemm_sms;
  plan.gemm = gemm::make_plan(shard, go, limits);
  if (fused && plan.gemm.kind != gemm::KernelKind::wgmma)
    throw Error("symm gemm_all_scatter: the fused kernels need the WGMMA GEMM, which cannot run this "
                "shard: " + plan.gemm.reason);
  // The GEMM's heuristic may prefer a tile the variant's kernels are not built for
  // (configs.hpp): then its best candidate that they are.
  if (const gemm::KernelConfig alone = plan.gemm.config; fused && !detail::built_for(plan.variant, alone)) {
    const auto candidates = gemm::candidate_plans(shard, go, limits, std::numeric_limits<int>::max());
    const auto built = std::find_if(candidates.begin(), candidates.end(), [&](const gemm::Plan& c) {
      return detail::built_for(plan.variant, c.config);
    });
    if (built == candidates.end())
      throw Error(fmt::format("symm gemm_all_scatter: no configuration built for {} can run this shard "
                              "(built: {})", to_string(plan.variant), gemm::config_names(detail::built_configs(plan.variant))));
    plan.gemm = *built;
    plan.gemm.reason += fmt::format(" (the GEMM alone would run {}, which {} is not built for)",
                                    gemm::to_string(alone), to_string(plan.variant));
  }
  plan.config = plan.gemm.config;
  plan.gemm_sms = plan.gemm.num_blocks;
  // The blocks' tiles (TileInfo::tile): a cluster's unit is a tile per block.
  plan.tiles = plan.gemm.sched.num_tiles() * plan.config.cluster_blocks();
  if (plan.variant == ScatterVariant::wg_specialization) plan.comm_sms = grid - gemm_sms;
  if (plan.variant == ScatterVariant::bulk_synchronous) plan.comm_sms = sm_count;
  return plan;
}

std::string describe(const AllScatterShape& s, const AllScatterPlan& p) {
  return fmt::format("symm gemm_all_scatter: M={} N={} K={} {} B={} -> {} peers: {} {} gemm_sms={} "
                     "comm_sms={} gsize_m={} {} ({} tiles per rank); {}",
                     s.m, s.n, s.k, gemm::to_string(s.dtype), gemm::to_string(s.b_layout), p.peers,
                     to_string(p.variant), gemm::to_string(p.config), p.gemm_sms, p.comm_sms, p.gsize_m,
                     gemm::decomposition(p.gemm.sched), p.tiles, p.reason);
}

}  // namespace symm::ops
