// GemmAllScatter's cross-rank checks without a GPU, ranks as threads: ranks that were
// given different shapes, planned differently or hold C at different heap offsets all
// stop, each with a message naming the first difference.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rank_agreement.hpp"
#include "thread_team.hpp"

namespace symm::ops::detail {
namespace {

using symm::testing::run_ranks;

constexpr int kH200Sms = 132;

const AllScatterShape kShape{8192, 4608, 36864, gemm::DType::bf16, gemm::BLayout::kn};

PlanTerms terms_of(const AllScatterShape& shape, const GemmAllScatterOptions& options, int world,
                   int sms = kH200Sms) {
  const AllScatterPlan plan = make_plan(shape, options, world, sms);
  return plan_terms(shape, &plan);
}

// Each rank checks its own terms (a refusal where it has none); returns each rank's error.
std::vector<std::string> check(const std::vector<PlanTerms>& per_rank, const std::string& refusal = {}) {
  return run_ranks(int(per_rank.size()),
                   [&](Team& team) { check_ranks_agree(team, per_rank[team.rank()], refusal); });
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RankAgreement, RanksThatPlannedTheSameOpGoOn) {
  const PlanTerms mine = terms_of(kShape, {}, 3);
  for (const std::string& error : check({mine, mine, mine})) EXPECT_EQ(error, "");
}

TEST(RankAgreement, AShapeGivenDifferentlyStopsEveryRankNamingTheTerm) {
  AllScatterShape other = kShape;
  other.m = 4096;
  const std::vector<std::string> errors =
      check({terms_of(kShape, {}, 3), terms_of(kShape, {}, 3), terms_of(other, {}, 3)});
  for (const std::string& error : errors) {
    EXPECT_TRUE(has(error, "different shapes: M is 8192 on rank 0 and 4096 on rank 2")) << error;
    EXPECT_TRUE(has(error, "same AllScatterShape")) << error;
  }
  AllScatterShape nk = kShape;
  nk.b_layout = gemm::BLayout::nk;
  for (const std::string& error : check({terms_of(kShape, {}, 2), terms_of(nk, {}, 2)}))
    EXPECT_TRUE(has(error, "b_layout is 0 on rank 0 and 1 on rank 1")) << error;
}

TEST(RankAgreement, OptionsGivenDifferentlyStopEveryRankNamingThePlanTerm) {
  GemmAllScatterOptions o0, o1;
  o0.variant = o1.variant = ScatterVariant::wg_specialization;
  o0.gemm_sms = 64;
  o1.gemm_sms = 100;
  o0.config = o1.config = make_plan(kShape, o0, 2, kH200Sms).config;  // the tile too would follow gemm_sms
  for (const std::string& error : check({terms_of(kShape, o0, 2), terms_of(kShape, o1, 2)})) {
    EXPECT_TRUE(has(error, "planned different ops: gemm_sms is 64 on rank 0 and 100 on rank 1")) << error;
    EXPECT_TRUE(has(error, "GPUs of the same kind")) << error;
  }
}

TEST(RankAgreement, GpusWithOtherSmCountsPlanDifferentlyAndStopEveryRank) {
  const std::vector<std::string> errors =
      check({terms_of(kShape, {}, 2, kH200Sms), terms_of(kShape, {}, 2, 114)});
  for (const std::string& error : errors) {
    EXPECT_TRUE(has(error, "planned different ops")) << error;
    EXPECT_TRUE(has(error, "on rank 1")) << error;
  }
}

TEST(RankAgreement, ARankThatCannotPlanSaysWhyAndTheOthersStopNamingIt) {
  const PlanTerms planned = terms_of(kShape, {}, 3);
  const PlanTerms none = plan_terms(kShape, nullptr);
  const std::vector<std::string> errors = check({planned, none, planned}, "the reason rank 1 has");
  EXPECT_TRUE(has(errors[0], "rank 1 could not plan the op")) << errors[0];
  EXPECT_EQ(errors[1], "the reason rank 1 has");
  EXPECT_TRUE(has(errors[2], "rank 1 could not plan the op")) << errors[2];
}

TEST(RankAgreement, ADifferentShapeOutranksAMissingPlan) {
  AllScatterShape other = kShape;
  other.k = 18432;
  const std::vector<std::string> errors = check({terms_of(kShape, {}, 2), plan_terms(other, nullptr)}, "refused");
  for (const std::string& error : errors)
    EXPECT_TRUE(has(error, "K is 36864 on rank 0 and 18432 on rank 1")) << error;
}

// Each rank checks its C offset; returns each rank's error.
std::vector<std::string> check_offsets(const std::vector<std::int64_t>& per_rank) {
  return run_ranks(int(per_rank.size()), [&](Team& team) {
    check_same_c_offset(team, per_rank[team.rank()], "this rank's C is off its heap");
  });
}

TEST(RankAgreement, CAtTheSameOffsetOnEveryRankGoesOn) {
  for (const std::string& error : check_offsets({4096, 4096, 4096, 4096})) EXPECT_EQ(error, "");
}

TEST(RankAgreement, CAtAnotherOffsetOnOneRankStopsEveryRankWithBothOffsets) {
  for (const std::string& error : check_offsets({4096, 4096, 8192}))
    EXPECT_TRUE(has(error, "C lies at heap offset 4096 on rank 0 and 8192 on rank 2")) << error;
}

TEST(RankAgreement, ARankRefusingItsCOrOperandsStopsEveryRank) {
  const std::vector<std::string> errors = check_offsets({0, kRefused, 0});
  EXPECT_TRUE(has(errors[0], "rank 1 refused its C or operands")) << errors[0];
  EXPECT_EQ(errors[1], "this rank's C is off its heap");
  EXPECT_TRUE(has(errors[2], "rank 1 refused its C or operands")) << errors[2];
}

}  // namespace
}  // namespace symm::ops::detail
