// Random problems x options x devices (fixed seed) through the planner: every plan is one
// the kernels can run as planned, or the planner refuses before any launch, naming the
// SYMM_GEMM_* knob. Options that force nothing (no configuration given, values in range)
// are never refused.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fake_problem.hpp"
#include "symm/common/error.hpp"
#include "symm/gemm/plan.hpp"

namespace symm::gemm {
namespace {

using test::fake;
using test::problem;

struct Draw {
  std::mt19937_64 rng{20261130};
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  bool one_in(int n) { return uniform(1, n) == 1; }
  template <class T>
  T pick(std::initializer_list<T> values) {
    return values.begin()[uniform(0, int(values.size()) - 1)];
  }
  // 1 to 2^17, log-uniform; `multiple_of` 8 or 64 rounds it (16-byte rows), else any.
  std::int64_t extent(int multiple_of = 1) {
    const auto x = std::int64_t(std::exp2(std::uniform_real_distribution<double>(0, 17)(rng)));
    return std::max<std::int64_t>(multiple_of, x / multiple_of * multiple_of);
  }
};

// Three in four with rows TMA can describe (16-byte strides and addresses, M anything);
// the others with odd extents, odd pads or operands 2 bytes off a 16-byte boundary.
GemmProblem random_problem(Draw& r) {
  const bool tma = !r.one_in(4);
  auto row_extent = [&] { return r.extent(tma ? r.pick({8, 64}) : 1); };
  GemmProblem p = problem(r.extent(), row_extent(), row_extent(), r.pick({BLayout::nk, BLayout::kn}));
  p.in_dtype = r.pick({DType::bf16, DType::fp16});
  p.out_dtype = r.pick({p.in_dtype, DType::fp32});
  auto pad = [&] { return tma ? r.pick<std::int64_t>({0, 0, 8, 64}) : r.pick<std::int64_t>({0, 1, 3}); };
  p.lda += pad();
  p.ldb += pad();
  p.ldc += pad();
  if (!tma && r.one_in(3)) p.a = fake(0x10002);
  if (!tma && r.one_in(3)) p.c = fake(0x30002);
  return p;
}

// An H200 mostly; MIG-sized and Ampere/Ada devices sometimes.
DeviceLimits random_device(Draw& r) {
  DeviceLimits d;
  if (r.one_in(4)) d.sm_count = r.pick({16, 26, 42, 60, 78, 114});
  // GPCs whose SMs are not a multiple of 4 leave some out of 4-block clusters, or all.
  d.quad_cluster_blocks = r.one_in(10) ? 0 : d.sm_count / 4 * 4 - 4 * r.pick({0, 0, 1, 2});
  if (r.one_in(6)) {
    d.cc_major = 8;
    d.cc_minor = r.pick({0, 6, 9});
    d.sm_count = r.pick({46, 84, 108});
    d.max_smem_per_block = r.pick({101376, 166912});
  }
  return d;
}

GemmOptions random_options(Draw& r, const GemmProblem& p, const DeviceLimits& d) {
  GemmOptions o;
  const int k_iters = int(ceil_div(p.k, 64));
  o.num_blocks = r.pick({0, 0, 1, 2, 3, r.uniform(1, d.sm_count), d.sm_count - 1, d.sm_count, d.sm_count + 7});
  o.gsize_m = r.pick({8, 8, 1, 3, r.uniform(1, 64), INT_MAX});
  o.k_splits = r.pick({0, 0, 0, 1, 2, 3, 7, 16, k_iters, k_iters + 1, 1000, 100000});
  o.stream_k = r.uniform(-1, 1);
  o.split_tail = r.uniform(-1, 1);
  o.pingpong = r.uniform(-1, 1);
  o.clusters = r.uniform(-1, 1);
  o.force_fallback = r.one_in(8);
  if (r.one_in(3)) {
    std::vector<KernelConfig> configs(kWgmmaConfigs.begin(), kWgmmaConfigs.end());
    configs.insert(configs.end(), {FallbackConfig::desc, FallbackNarrowConfig::desc, {64, 64, 64, 2}});
    o.config = configs[r.uniform(0, int(configs.size()) - 1)];
  }
  if (r.one_in(40)) {  // out of range
    switch (r.uniform(0, 6)) {
      case 0: o.num_blocks = -1; break;
      case 1: o.gsize_m = 0; break;
      case 2: o.k_splits = -3; break;
      case 3: o.stream_k = 2; break;
      case 4: o.clusters = -7; break;
      case 5: o.split_tail = -2; break;
      default: o.pingpong = 5; break;
    }
  }
  return o;
}

std::string describe_case(int i, const GemmProblem& p, const GemmOptions& o, const DeviceLimits& d) {
  auto offset = [](const void* x) { return reinterpret_cast<std::uintptr_t>(x) % 16; };
  std::ostringstream s;
  s << "case " << i << ": M=" << p.m << " N=" << p.n << " K=" << p.k << " B=" << to_string(p.b_layout)
    << " " << to_string(p.in_dtype) << "->" << to_string(p.out_dtype) << " lda=" << p.lda << " ldb=" << p.ldb
    << " ldc=" << p.ldc << " A%16=" << offset(p.a) << " C%16=" << offset(p.c) << "; sm_" << d.cc_major
    << d.cc_minor << " with " << d.sm_count << " SMs, " << d.max_smem_per_block << " B smem; config="
    << (o.config ? to_string(*o.config) : "-") << " num_blocks=" << o.num_blocks << " gsize_m=" << o.gsize_m
    << " k_splits=" << o.k_splits << " stream_k=" << o.stream_k << " split_tail=" << o.split_tail
    << " pingpong=" << o.pingpong
    << " clusters=" << o.clusters
    << " force_fallback=" << o.force_fallback;
  return s.str();
}

// What is wrong with `plan` for p on d under o; empty when the kernels can run it.
std::string invalidity(const GemmProblem& p, const GemmOptions& o, const DeviceLimits& d, const Plan& plan) {
  const TileScheduler& s = plan.sched;
  const KernelConfig& c = plan.config;
  if (auto why = plan_mismatch(p, plan); !why.empty()) return why;
  if (s.k_iters != ceil_div(p.k, c.blk_k)) return "K iterations do not match K";
  if (s.k_splits < 1 || s.k_splits > s.k_iters) return "splits outside [1, K iterations]";
  if (o.k_splits > 0 && s.k_splits != std::min({o.k_splits, s.k_iters, 65535}))
    return "k_splits given but not used (clamped to the K iterations)";
  if (o.k_splits > s.k_splits && plan.reason.find("SYMM_GEMM_SPLITS") == std::string::npos)
    return "k_splits clamped without a note in the reason";
  if (s.gsize_m < 1 || std::int64_t(s.gsize_m) * s.tiles_n > INT_MAX) return "group size out of range";
  const WorkspaceLayout ws = workspace_layout(plan);
  const bool needs_ws = s.k_splits > 1 || s.stream_k();
  if ((ws.counter_bytes + ws.partial_bytes > 0) != needs_ws)
    return "split-K workspace where none is needed, or none where it is";
  if (ws.copy_a_bytes < plan.copies.a.bytes() || ws.copy_b_bytes < plan.copies.b.bytes() ||
      ws.copy_c_bytes < plan.copies.c.bytes())
    return "workspace smaller than the operand copies";
  // The problem as the kernel sees it (copied operands at an aligned scratch address).
  void* scratch = reinterpret_cast<void*>(std::uintptr_t{1} << 30);
  const GemmProblem launched = with_copies(p, plan.copies, scratch, scratch, scratch);
  if (plan.kind == KernelKind::fallback) {
    if (c != FallbackConfig::desc && c != FallbackNarrowConfig::desc) return "not a fallback configuration";
    if (!fallback_takes(c, p.b_layout)) return "fallback configuration does not take B's layout";
    if (o.force_fallback && o.config && *o.config != c) return "forced fallback configuration not used";
    const int smem = c == FallbackConfig::desc ? FallbackConfig::SMEM_BYTES : FallbackNarrowConfig::SMEM_BYTES;
    if (smem > d.max_smem_per_block) return "fallback shared memory over the device's limit";
    if (s.tiles_m > 65535 || s.k_splits > 65535) return "fallback grid over CUDA's limits";
    if (std::int64_t(plan.num_blocks) != std::int64_t(s.num_tiles()) * s.k_splits) return "grid is not tiles x splits";
    if (plan.copies.any()) return "operand copies planned for the fallback";
    const OperandCopies possible = required_copies(p);
    if (!o.force_fallback && tma_incompatibility(with_copies(p, possible, scratch, scratch, scratch)).empty() &&
        d.cc_major == 9 && d.cc_minor == 0)
      return "fallback where WGMMA could run (through operand copies if need be)";
    if (needs_ws && ws.partial_bytes < std::size_t(s.num_tiles()) * s.k_splits * c.blk_m * c.blk_n * 4)
      return "workspace smaller than the partials";
    return {};
  }
  if (o.force_fallback) return "force_fallback given, WGMMA planned";
  if (auto why = can_implement(c, launched, d); !why.empty()) return "WGMMA plan it cannot run: " + why;
  if (o.config && c != *o.config) return "configuration given but not used";
  if (o.pingpong != -1 && c.pingpong() != (o.pingpong == 1)) return "ping-pong option not followed";
  if (o.clusters != -1 && c.clustered() != (o.clusters == 1)) return "clusters option not followed";
  if (c.whole_tiles_only() && (s.k_splits > 1 || s.stream_k()))
    return "whole-tile kernel (ping-pong, swapped, three consumers) with split or stream-K work";
  if (plan.num_blocks < 1 || plan.num_blocks > d.sm_count) return "grid outside [1, SMs]";
  if (plan.num_blocks % c.cluster_blocks() != 0) return "grid of part of a cluster";
  if (c.cluster_blocks() == 4 && plan.num_blocks > d.quad_cluster_blocks) return "more 4-block clusters than fit";
  if (o.num_blocks > 0 && plan.num_blocks > o.num_blocks) return "more blocks than num_blocks";
  // Partials: a cluster's blocks each write their own tile's.
  std::size_t writers = std::size_t(s.split_tiles()) * (s.k_splits - 1) * c.cluster_blocks();
  if (s.stream_k()) {
    if (s.k_splits != 1 || plan.num_blocks != s.stream_k_workers * c.cluster_blocks())
      return "stream-K with splits or other workers";
    if (s.dp_tiles % s.stream_k_workers != 0 || s.dp_tiles >= s.num_tiles()) return "stream-K data-parallel share";
    if (s.stream_k_iters() < s.stream_k_workers) return "a stream-K worker without iterations";
    writers = std::size_t(plan.num_blocks);
  } else if (plan.num_blocks > s.num_units() * c.cluster_blocks()) {
    return "more blocks than work units";
  } else if (s.dp_tiles > 0) {  // split tail: full waves whole, then a part-empty one split
    const int workers = plan.num_blocks / c.cluster_blocks();
    if (s.k_splits < 2) return "whole tiles before a tail that is not split";
    if (s.dp_tiles % workers != 0 || s.split_tiles() <= 0 || s.split_tiles() >= workers)
      return "split tail other than the last, part-empty wave";
  }
  if (needs_ws && ws.partial_bytes < writers * c.blk_m * c.blk_n * 4) return "workspace smaller than the partials";
  return {};
}

TEST(GemmPlanRandomWalk, EveryPlanRunsOrIsRefusedNamingTheKnob) {
  Draw r;
  int planned = 0, refused = 0, fallback = 0, split = 0, tail = 0, stream_k = 0, pingpong = 0, clusters = 0,
      single = 0;
  for (int i = 0; i < 10000; ++i) {
    const GemmProblem p = random_problem(r);
    const DeviceLimits d = random_device(r);
    const GemmOptions o = random_options(r, p, d);
    const std::string where = describe_case(i, p, o, d);
    std::optional<Plan> made;
    try {
      made = make_plan(p, o, d);
    } catch (const Error& e) {
      ++refused;
      const std::string what = e.what();
      ASSERT_NE(what.find("SYMM_GEMM_"), std::string::npos) << where << "\nrefused without naming a knob: " << what;
      ASSERT_TRUE(o.config || !validate(o).empty())
          << where << "\nrefused options that force nothing: " << what;
      continue;
    }
    {
      const Plan& plan = *made;
      ++planned;
      fallback += plan.kind == KernelKind::fallback;
      split += plan.sched.k_splits > 1;
      tail += plan.sched.k_splits > 1 && plan.sched.dp_tiles > 0;
      stream_k += plan.sched.stream_k();
      pingpong += plan.config.pingpong();
      clusters += plan.kind == KernelKind::wgmma && plan.config.clustered();
      single += plan.kind == KernelKind::wgmma && plan.num_blocks == 1;
      const std::string why = invalidity(p, o, d, plan);
      ASSERT_EQ(why, "") << where << "\n" << describe(p, plan);
    }
  }
  std::printf("%d planned (%d fallback, %d split-K, %d of them the last wave only, %d stream-K, %d ping-pong, "
              "%d clusters, %d on one block), %d refused\n",
              planned, fallback, split, tail, stream_k, pingpong, clusters, single, refused);
  // The walk reaches every kind of plan and refusal.
  for (int count : {fallback, split, tail, stream_k, pingpong, clusters, single, refused}) EXPECT_GT(count, 20);
}

// SYMM_GEMM_SMS=1 failed at launch (cudaErrorInvalidValue): a 2-block-cluster plan rounded
// one block down to a grid of 0. Every block count, every configuration: a grid of 1 or more
// whole clusters, or (fewer blocks than a cluster) a refusal naming the knob.
TEST(GemmPlanRandomWalk, AnyBlockCountFromOneToTheSms) {
  const DeviceLimits h200;
  for (const auto& p : {problem(8192, 8192, 8192), problem(1000, 1000, 1000, BLayout::kn), problem(64, 64, 64)})
    for (int blocks = 1; blocks <= h200.sm_count; ++blocks) {
      GemmOptions o;
      o.num_blocks = blocks;
      const Plan plan = make_plan(p, o, h200);
      ASSERT_GE(plan.num_blocks, 1) << describe(p, plan);
      ASSERT_LE(plan.num_blocks, blocks) << describe(p, plan);
      for (const KernelConfig& c : kWgmmaConfigs) {
        o.config = c;
        if (blocks < c.cluster_blocks()) {
          try {
            make_plan(p, o, h200);
            ADD_FAILURE() << to_string(c) << " planned on " << blocks << " block(s)";
          } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("SYMM_GEMM_SMS"), std::string::npos) << e.what();
          }
          o.config.reset();
          continue;
        }
        const int grid = make_plan(p, o, h200).num_blocks;
        ASSERT_TRUE(grid >= 1 && grid <= blocks && grid % c.cluster_blocks() == 0)
            << to_string(c) << ": " << grid << " for " << blocks << " blocks";
        o.config.reset();
      }
    }
}

// Row strides that are not multiples of 16 bytes (odd K, a vocabulary of 32001) cannot be
// described by TMA: WGMMA runs them through 128-byte-pitched copies; where copies are not
// allowed (fused kernels), the mma.sync fallback, saying why (bench/gemm/general.json).
TEST(GemmPlanRandomWalk, StridesTmaCannotDescribeRunThroughCopiesOrTheFallback) {
  GemmOptions in_place;
  in_place.operand_copies = false;
  for (const auto& p : {problem(4095, 4095, 4095), problem(2048, 32001, 4096), problem(2048, 32001, 4096, BLayout::kn)}) {
    const Plan plan = make_plan(p, {}, DeviceLimits{});
    EXPECT_EQ(plan.kind, KernelKind::wgmma) << describe(p, plan);
    EXPECT_TRUE(plan.copies.any()) << describe(p, plan);
    const Plan fallback = make_plan(p, in_place, DeviceLimits{});
    EXPECT_EQ(fallback.kind, KernelKind::fallback) << describe(p, fallback);
    EXPECT_NE(fallback.reason.find("not a multiple of 16"), std::string::npos) << fallback.reason;
  }
}

}  // namespace
}  // namespace symm::gemm
