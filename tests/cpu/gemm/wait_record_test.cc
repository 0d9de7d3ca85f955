// The GEMM's wait-failure record as the host prints it after a trapped launch.
#include <gtest/gtest.h>

#include <string>

#include "symm/gemm/wait_record.hpp"

namespace symm::gemm {
namespace {

GemmWaitRecord complete(GemmWaitSite site) {
  GemmWaitRecord r{};
  r.claimed = 2;
  r.site = int(site);
  r.block = 17;
  r.stage = site == GemmWaitSite::stage_release ? 3 : -1;
  r.tile = site == GemmWaitSite::partial_sums ? 41 : -1;
  r.seen = site == GemmWaitSite::partial_sums ? 1 : -1;
  r.expected = site == GemmWaitSite::partial_sums ? 3 : -1;
  r.waited_ns = 10'000'123'456;
  return r;
}

TEST(GemmWaitRecord, SaysWhichWaitTimedOutAndWhatItWaitedFor) {
  const std::string stage = describe(complete(GemmWaitSite::stage_release));
  EXPECT_NE(stage.find("block 17 timed out after 10000 ms (SYMM_WAIT_TIMEOUT_MS)"), std::string::npos) << stage;
  EXPECT_NE(stage.find("pipeline stage 3"), std::string::npos) << stage;
  const std::string partials = describe(complete(GemmWaitSite::partial_sums));
  EXPECT_NE(partials.find("partial sums of tile 41: 1 of 3 arrived"), std::string::npos) << partials;
}

TEST(GemmWaitRecord, SaysNothingUntilTheRecordIsComplete) {
  GemmWaitRecord r = complete(GemmWaitSite::stage_release);
  r.claimed = 1;  // a waiter is still writing it
  EXPECT_EQ(describe(r), "");
  r.claimed = 0;
  EXPECT_EQ(describe(r), "");
  r = complete(GemmWaitSite::stage_release);
  r.site = 9;
  EXPECT_NE(describe(r).find("unknown wait (site 9)"), std::string::npos);
}

}  // namespace
}  // namespace symm::gemm
