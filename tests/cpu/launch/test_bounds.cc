// Every bounded launcher setting at its bounds: accepted at each bound and just inside,
// refused just outside, so a bound that moves (or vanishes) turns a test red.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include "env.hpp"
#include "limits.hpp"
#include "symm/common/error.hpp"
#include "symm/host/options.hpp"
#include "symm/host/settings.hpp"
#include "scoped_env.hpp"

namespace {

using symm::detail::kMaxRanks;
using symm::detail::kMaxTimeLimitMs;

// Accepted at `lo` and `hi` and just inside them, refused just outside.
template <class Accepted>
void expect_accepted_from_to(Accepted accepted, long long lo, long long hi) {
  for (long long value : {lo, lo + 1, hi - 1, hi}) EXPECT_TRUE(accepted(value)) << value << " refused";
  for (long long value : {lo - 1, hi + 1}) EXPECT_FALSE(accepted(value)) << value << " accepted";
}

bool bootstrap_timeout_accepted(long long ms) {
  const ScopedEnv env("SYMM_BOOTSTRAP_TIMEOUT_MS", std::to_string(ms));
  try {
    return symm::settings::bootstrap_timeout().count() == ms;
  } catch (const symm::Error&) {
    return false;
  }
}

TEST(Bounds, BootstrapTimeoutIsOneMillisecondToAWeek) {
  expect_accepted_from_to(bootstrap_timeout_accepted, 1, kMaxTimeLimitMs);
  EXPECT_EQ(kMaxTimeLimitMs, 7LL * 24 * 3600 * 1000);
}

// --rank_timeout and SYMM_RANK_TIMEOUT_S share the parse.
TEST(Bounds, RankTimeLimitIsZeroToAWeek) {
  using symm::detail::parse_seconds;
  EXPECT_EQ(parse_seconds("0"), std::chrono::milliseconds(0));
  EXPECT_EQ(parse_seconds("0.001"), std::chrono::milliseconds(1));
  EXPECT_EQ(parse_seconds("1e2"), std::chrono::milliseconds(100000));
  EXPECT_FALSE(parse_seconds("-0.001"));
  // A positive limit that would round to 0, which means none, is refused; so is what
  // strtod would read but is no decimal number of seconds.
  EXPECT_FALSE(parse_seconds("0.0004"));
  EXPECT_FALSE(parse_seconds("1e-4"));
  EXPECT_FALSE(parse_seconds(" 5"));
  EXPECT_FALSE(parse_seconds("0x10"));
  EXPECT_FALSE(parse_seconds("nan"));
  EXPECT_FALSE(parse_seconds("inf"));
  EXPECT_EQ(parse_seconds("604799.999"), std::chrono::milliseconds(kMaxTimeLimitMs - 1));
  EXPECT_EQ(parse_seconds("604800"), std::chrono::milliseconds(kMaxTimeLimitMs));
  EXPECT_FALSE(parse_seconds("604800.001"));
}

// Parses `-r ranks` as every symm program does; true when accepted.
bool rank_count_accepted(long long ranks) {
  CLI::App app{"test"};
  symm::LaunchOptions launch;
  symm::add_launch_options(app, launch);
  try {
    app.parse(std::vector<std::string>{std::to_string(ranks), "-r"});  // CLI11 reads them reversed
  } catch (const CLI::ParseError&) {
    return false;
  }
  return launch.num_ranks == ranks;
}

TEST(Bounds, RankCountIsOneToTheMaximum) {
  expect_accepted_from_to(rank_count_accepted, 1, kMaxRanks);
  EXPECT_EQ(kMaxRanks, 1024);
}

// --heap_size and SYMM_HEAP_SIZE share the parse: any size that fits in 64 bits.
TEST(Bounds, SizesUpTo64BitsAreAccepted) {
  using symm::parse_bytes;
  EXPECT_EQ(parse_bytes("18446744073709551614"), 18446744073709551614ull);
  EXPECT_EQ(parse_bytes("18446744073709551615"), 18446744073709551615ull);
  EXPECT_THROW(parse_bytes("18446744073709551616"), symm::Error);
  EXPECT_EQ(parse_bytes("16777215TiB"), 16777215ull << 40);  // through the unit's multiply
  EXPECT_THROW(parse_bytes("16777216TiB"), symm::Error);
  EXPECT_EQ(parse_bytes("1.8e19"), 18000000000000000000ull);  // through the floating path
  EXPECT_THROW(parse_bytes("1.8446744073709551616e19"), symm::Error);
}

}  // namespace
