// Every knob safe, on the GPU: a fixed sample of problems x options (one block, splits
// beyond the K iterations, forced configurations that do or do not fit, odd sizes and
// strides, then random draws from a fixed seed) either matches cuBLAS or is refused before
// launch naming the SYMM_GEMM_* knob. One test per sample, so a trap stays in its process.
#include <climits>
#include <optional>
#include <random>
#include <string>

#include "gemm_vs_cublas.hpp"
#include "symm/common/error.hpp"
#include "symm/gemm/gemm.hpp"

namespace symm::gemm::test {
namespace {

struct Sample {
  Case problem;
  GemmOptions options;
  bool refused = false;  // edges: the outcome the planner must give (random draws: either)
};

KernelConfig first_pingpong() {
  for (const KernelConfig& c : kWgmmaConfigs)
    if (c.pingpong()) return c;
  return kWgmmaConfigs.front();
}

// Edges chosen by hand: the SYMM_GEMM_SMS=1 failure, one-block split-K and stream-K,
// clamped splits (WGMMA and fallback), misfit and fitting forced configurations. Each
// runs, except the ping-pong configuration forced with split K (whole tiles only).
Sample edge_sample(int index) {
  Sample s;
  GemmOptions& o = s.options;
  switch (index) {
    case 0: s.problem = {{1000, 1000, 1000, 0}}; o.num_blocks = 1; break;
    case 1: s.problem = {{333, 472, 1000, 8}, DType::fp16, DType::fp32, BLayout::kn}; o.num_blocks = 1; o.k_splits = 3; break;
    case 2: s.problem = {{700, 576, 4160, 8}}; o.num_blocks = 1; o.stream_k = 1; o.config = KernelConfig{128, 256, 64, 4}; break;
    case 3: s.problem = {{257, 136, 200, 0}}; o.k_splits = 1000; break;  // 4 K iterations
    case 4: s.problem = {{197, 131, 301, 2}, DType::bf16, DType::bf16, BLayout::kn}; o.k_splits = 50; o.num_blocks = 1; break;
    case 5: s.problem = {{512, 576, 512, 0}, DType::bf16, DType::bf16, BLayout::kn}; o.config = KernelConfig{128, 144, 64, 5}; break;
    case 6: s.problem = {{1, 8, 8, 0}}; o.config = KernelConfig{256, 128, 64, 4}; break;
    case 7: s.problem = {{999, 520, 776, 0}}; o.config = first_pingpong(); o.num_blocks = 1; break;
    case 8: s.problem = {{640, 512, 320, 0}}; o.config = first_pingpong(); o.k_splits = 2; s.refused = true; break;
    default: s.problem = {{1531, 1048, 2056, 0}}; o.num_blocks = 131; o.gsize_m = INT_MAX; break;
  }
  return s;
}
constexpr int kEdges = 10;

// A random draw: sizes up to 1536 x 1536 x 2048, M any, N and (mostly) K multiples of 8,
// rows padded by 0, 8 or 2 elements (2: strides TMA cannot describe), any types and
// layout, and options in range (a third with a forced configuration).
Sample random_sample(int index) {
  std::mt19937_64 rng(20261130 + index);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto pick = [&](std::initializer_list<int> v) { return v.begin()[uniform(0, int(v.size()) - 1)]; };
  Sample s;
  Case& c = s.problem;
  const int k = uniform(1, 2048);
  c.shape = {uniform(1, 1536), uniform(1, 1536) / 8 * 8 + 8, uniform(1, 4) == 1 ? k : k / 8 * 8 + 8,
             pick({0, 0, 0, 8, 2})};
  c.in = pick({0, 1}) ? DType::bf16 : DType::fp16;
  c.out = pick({0, 1}) ? c.in : DType::fp32;
  c.layout = pick({0, 1}) ? BLayout::nk : BLayout::kn;
  GemmOptions& o = s.options;
  const int k_iters = int(ceil_div(c.shape.k, 64));
  o.num_blocks = pick({0, 1, 2, 3, 7, uniform(1, 132), 132});
  o.gsize_m = pick({8, 1, 3, INT_MAX});
  o.k_splits = pick({0, 0, 1, 2, 5, k_iters + 3});
  o.stream_k = uniform(-1, 1);
  o.pingpong = o.k_splits > 1 || o.stream_k == 1 ? pick({-1, 0}) : uniform(-1, 1);
  o.force_fallback = uniform(1, 8) == 1;
  if (uniform(1, 3) == 1) o.config = kWgmmaConfigs[uniform(0, int(kWgmmaConfigs.size()) - 1)];
  return s;
}

class GemmRandomSample : public ::testing::TestWithParam<int> {};

TEST_P(GemmRandomSample, MatchesCublasOrIsRefusedNamingTheKnob) {
  SYMM_REQUIRE_GPUS(1);
  if (auto why = skip_reason(false); !why.empty()) GTEST_SKIP() << why;
  const Sample s = GetParam() < kEdges ? edge_sample(GetParam()) : random_sample(GetParam());
  const GemmOptions& o = s.options;
  const auto& [m, n, k, pad] = s.problem.shape;
  SCOPED_TRACE(::testing::Message() << "M=" << m << " N=" << n << " K=" << k << " pad=" << pad << " B="
                                    << to_string(s.problem.layout) << " config="
                                    << (o.config ? to_string(*o.config) : "-") << " num_blocks=" << o.num_blocks
                                    << " gsize_m=" << o.gsize_m << " k_splits=" << o.k_splits
                                    << " stream_k=" << o.stream_k << " pingpong=" << o.pingpong
                                    << " force_fallback=" << o.force_fallback);
  GemmVsCublas check;
  // Only the plan may refuse: an error once it runs (a launch, a wrong output) fails the
  // test. Run twice: split-K counters reset themselves.
  std::string refusal;
  const std::optional<Plan> plan = check.run_unless_refused(s.problem, o, 2, refusal);
  if (GetParam() < kEdges) {
    EXPECT_EQ(!plan, s.refused) << (plan ? "ran: " + plan->reason : "refused: " + refusal);
  }
  if (!plan) {
    EXPECT_NE(refusal.find("SYMM_GEMM_"), std::string::npos) << "refused without naming a knob: " << refusal;
    EXPECT_TRUE(o.config.has_value()) << "refused options that force nothing: " << refusal;
    return;
  }
  if (plan->kind == KernelKind::wgmma && o.num_blocks > 0) {
    EXPECT_GE(plan->num_blocks, 1);
    EXPECT_LE(plan->num_blocks, o.num_blocks);
  }
  if (o.k_splits > plan->sched.k_splits) {
    EXPECT_NE(plan->reason.find("SYMM_GEMM_SPLITS"), std::string::npos) << plan->reason;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeded, GemmRandomSample, ::testing::Range(0, kEdges + 20));

}  // namespace
}  // namespace symm::gemm::test
