// Rules and heuristic of the GEMM: which kernel can run a problem, and which should.
#include "symm/gemm/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "symm/common/error.hpp"

namespace symm::gemm {
namespace {

constexpr std::int64_t kMaxDim = std::numeric_limits<std::int32_t>::max();

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// Configurations the heuristic considers, fastest shapes first; the Iris sweep shapes
// (2 and 3 stages) run only when asked for. Efficiencies: full-tile throughput relative
// to 128x256x64s4, measured on an H200 at 8192^3 and 8192 x 4608 x 36864 (docs/gemm.md).
struct Candidate {
  KernelConfig config;
  double efficiency;
};
constexpr Candidate kCandidates[] = {{{128, 256, 64, 4}, 1.00},
                                     {{256, 128, 64, 4}, 0.99},
                                     {{128, 192, 64, 4}, 0.99},
                                     {{128, 128, 64, 6}, 0.94}};
constexpr int kMaxSplits = 16;
constexpr int kMinKItersPerSplit = 8;
constexpr double kEpilogueKIters = 2.0;  // a tile's epilogue costs about 2 K iterations
// Writing or adding one fp32 partial tile: 4 bytes per output element through L2, at a
// 132nd of its bandwidth, is about 4 K iterations of the tile's wgmmas.
constexpr double kPartialKIters = 4.0;
// Split only for a predicted gain of 3 % or more: the model ignores the last split's wait.
constexpr double kMinSplitGain = 0.97;

bool is_built(const KernelConfig& c) {
  return std::find(kWgmmaConfigs.begin(), kWgmmaConfigs.end(), c) != kWgmmaConfigs.end();
}

double efficiency(const KernelConfig& c) {
  for (const auto& cand : kCandidates)
    if (cand.config == c) return cand.efficiency;
  // Shallower pipelines and narrower tiles: less latency hidden, more operand traffic.
  const double shape = double(c.blk_m * c.blk_n) / (128.0 * 256.0);
  return std::min(1.0, 0.55 + 0.35 * shape + 0.05 * c.stages);
}

int default_blocks(const GemmOptions& o, const DeviceLimits& d) {
  return o.num_blocks > 0 ? std::min(o.num_blocks, d.sm_count) : d.sm_count;
}

}  // namespace

std::string validate(const GemmProblem& p) {
  if (p.m < 1 || p.n < 1 || p.k < 1) return fmt::format("empty problem M={} N={} K={}", p.m, p.n, p.k);
  if (p.m > kMaxDim || p.n > kMaxDim || p.k > kMaxDim)
    return fmt::format("M, N and K must be below 2^31 (M={} N={} K={})", p.m, p.n, p.k);
  if (!p.a || !p.b || !p.c) return "A, B and C must be non-null device pointers";
  if (p.in_dtype == DType::fp32) return "inputs must be bf16 or fp16";
  if (p.out_dtype != DType::fp32 && p.out_dtype != p.in_dtype)
    return fmt::format("output must be the input type ({}) or fp32, not {}", to_string(p.in_dtype),
                       to_string(p.out_dtype));
  if (p.lda < p.k) return fmt::format("lda={} is below K={}", p.lda, p.k);
  const std::int64_t b_row = p.b_layout == BLayout::kn ? p.n : p.k;
  if (p.ldb < b_row) return fmt::format("ldb={} is below the row length {} of B ({})", p.ldb, b_row,
                                        to_string(p.b_layout));
  if (p.ldc < p.n) return fmt::format("ldc={} is below N={}", p.ldc, p.n);
  return {};
}

std::string tma_incompatibility(const GemmProblem& p) {
  if (!aligned16(p.a) || !aligned16(p.b) || !aligned16(p.c))
    return "A, B and C must start on 16-byte boundaries for TMA";
  const int in = dtype_bytes(p.in_dtype), out = dtype_bytes(p.out_dtype);
  if (p.lda * in % 16 != 0) return fmt::format("A's row stride lda*{}={} B is not a multiple of 16", in, p.lda * in);
  if (p.ldb * in % 16 != 0) return fmt::format("B's row stride ldb*{}={} B is not a multiple of 16", in, p.ldb * in);
  if (p.ldc * out % 16 != 0)
    return fmt::format("C's row stride ldc*{}={} B is not a multiple of 16", out, p.ldc * out);
  return {};
}

std::string can_implement(const KernelConfig& c, const GemmProblem& p, const DeviceLimits& d) {
  if (d.cc_major != 9 || d.cc_minor != 0)
    return fmt::format("WGMMA kernels are built for sm_90a; this device is sm_{}{}", d.cc_major, d.cc_minor);
  if (!is_built(c)) return fmt::format("configuration {} is not built into the library", to_string(c));
  if (c.smem_bytes() > d.max_smem_per_block)
    return fmt::format("configuration {} needs {} B of shared memory per block; the device allows {}",
                       to_string(c), c.smem_bytes(), d.max_smem_per_block);
  if (auto why = validate(p); !why.empty()) return why;
  return tma_incompatibility(p);
}

double predicted_cost(const KernelConfig& c, std::int64_t m, std::int64_t n, std::int64_t k,
                      int k_splits, int num_blocks) {
  const auto s = TileScheduler::make(m, n, k, c.blk_m, c.blk_n, c.blk_k, k_splits, 1);
  const double waves = std::ceil(double(s.num_units()) / num_blocks);
  const double k_iters = std::ceil(double(s.k_iters) / k_splits);
  const double extra = kEpilogueKIters + (k_splits > 1 ? kPartialKIters * (k_splits - 1) : 0.0);
  return waves * (k_iters + extra) * double(c.blk_m * c.blk_n) / efficiency(c);
}

namespace {

int best_splits(const KernelConfig& c, const GemmProblem& p, int blocks) {
  const auto k_iters = int(ceil_div(p.k, c.blk_k));
  const int max_splits = std::clamp(k_iters / kMinKItersPerSplit, 1, kMaxSplits);
  int best = 1;
  for (int s = 2; s <= max_splits; ++s)
    if (predicted_cost(c, p.m, p.n, p.k, s, blocks) < predicted_cost(c, p.m, p.n, p.k, best, blocks))
      best = s;
  const double unsplit = predicted_cost(c, p.m, p.n, p.k, 1, blocks);
  return predicted_cost(c, p.m, p.n, p.k, best, blocks) < kMinSplitGain * unsplit ? best : 1;
}

Plan fallback_plan(const GemmProblem& p, std::string reason) {
  Plan plan;
  plan.kind = KernelKind::fallback;
  plan.config = FallbackConfig::desc;
  plan.sched = TileScheduler::make(p.m, p.n, p.k, FallbackConfig::BLK_M, FallbackConfig::BLK_N,
                                   FallbackConfig::BLK_K, 1, 1);
  plan.num_blocks = plan.sched.num_tiles();
  plan.aligned_loads = aligned16(p.a) && aligned16(p.b) && p.lda % 8 == 0 && p.ldb % 8 == 0;
  plan.reason = std::move(reason);
  return plan;
}

}  // namespace

Plan make_plan(const GemmProblem& p, const GemmOptions& o, const DeviceLimits& d) {
  if (auto why = validate(p); !why.empty()) throw Error("symm gemm: invalid problem: " + why);
  if (o.force_fallback) return fallback_plan(p, "fallback forced (SYMM_GEMM_FORCE_FALLBACK / options)");
  const int blocks = default_blocks(o, d);

  Plan plan;
  if (o.config) {
    if (auto why = can_implement(*o.config, p, d); !why.empty()) {
      if (!tma_incompatibility(p).empty() || d.cc_major != 9)
        return fallback_plan(p, "WGMMA cannot run it: " + why);
      throw Error(fmt::format("symm gemm: configuration {} refused: {}", to_string(*o.config), why));
    }
    plan.config = *o.config;
    plan.reason = "configuration given";
  } else {
    if (auto why = can_implement(kCandidates[0].config, p, d); !why.empty())
      return fallback_plan(p, "WGMMA cannot run it: " + why);
    double best = std::numeric_limits<double>::infinity();
    for (const auto& cand : kCandidates) {
      if (!can_implement(cand.config, p, d).empty()) continue;
      const int splits = o.k_splits > 0 ? o.k_splits : best_splits(cand.config, p, blocks);
      const double cost = predicted_cost(cand.config, p.m, p.n, p.k, splits, blocks);
      if (cost < best) best = cost, plan.config = cand.config;
    }
    plan.reason = "heuristic: fewest predicted waves x K iterations";
  }
  const int k_iters = int(ceil_div(p.k, plan.config.blk_k));
  int splits = o.k_splits > 0 ? o.k_splits : best_splits(plan.config, p, blocks);
  splits = std::min(splits, k_iters);
  plan.kind = KernelKind::wgmma;
  plan.sched = TileScheduler::make(p.m, p.n, p.k, plan.config.blk_m, plan.config.blk_n,
                                   plan.config.blk_k, splits, o.gsize_m);
  plan.num_blocks = std::min(blocks, plan.sched.num_units());
  return plan;
}

std::size_t workspace_bytes(const Plan& plan) {
  if (plan.kind != KernelKind::wgmma || plan.sched.k_splits < 2) return 0;
  const auto tiles = std::size_t(plan.sched.num_tiles());
  const std::size_t counters = tiles * kConsumers * sizeof(int);
  const std::size_t partials =
      tiles * (plan.sched.k_splits - 1) * plan.config.blk_m * plan.config.blk_n * sizeof(float);
  return (counters + 255) / 256 * 256 + partials;
}

std::string describe(const GemmProblem& p, const Plan& plan) {
  const std::string kernel =
      plan.kind == KernelKind::wgmma
          ? fmt::format("wgmma {} k_splits={} blocks={} gsize_m={} ({} tiles)", to_string(plan.config),
                        plan.sched.k_splits, plan.num_blocks, plan.sched.gsize_m, plan.sched.num_tiles())
          : fmt::format("fallback mma.sync {} ({} loads, {} blocks)", to_string(plan.config),
                        plan.aligned_loads ? "cp.async" : "element-wise", plan.num_blocks);
  return fmt::format("symm gemm: M={} N={} K={} {}->{} B={} lda={} ldb={} ldc={}: {}; {}", p.m, p.n,
                     p.k, to_string(p.in_dtype), to_string(p.out_dtype), to_string(p.b_layout), p.lda,
                     p.ldb, p.ldc, kernel, plan.reason);
}

}  // namespace symm::gemm
