// SYMM_WAIT_TIMEOUT_MS, the budget of every device-side wait: read without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "symm/common/error.hpp"
#include "symm/host/runtime.hpp"
#include "scoped_env.hpp"

namespace symm {
namespace {

constexpr const char* kBudget = "SYMM_WAIT_TIMEOUT_MS";

TEST(WaitTimeout, DefaultAndGivenMilliseconds) {
  {
    ScopedEnv unset(kBudget, std::nullopt);
    EXPECT_EQ(device_wait_timeout_ns(), 10'000'000'000u);  // the documented 10 s
  }
  ScopedEnv env(kBudget, "250");
  EXPECT_EQ(device_wait_timeout_ns(), 250'000'000u);
}

// 0 would trap every wait at once; a huge value overflows the nanosecond clock budget.
TEST(WaitTimeout, RefusesZeroHugeAndNonNumbers) {
  for (const char* bad : {"0", "100000000000", "-1", "ten"}) {
    ScopedEnv env(kBudget, bad);
    EXPECT_THROW(device_wait_timeout_ns(), Error) << bad;
  }
}

// 1 ms to a day: accepted at each bound and just inside, refused just outside.
TEST(WaitTimeout, BoundsAreOneMillisecondAndADay) {
  constexpr std::uint64_t kDayMs = 24ull * 3600 * 1000;
  for (std::uint64_t ms : {std::uint64_t{1}, std::uint64_t{2}, kDayMs - 1, kDayMs}) {
    ScopedEnv env(kBudget, std::to_string(ms));
    EXPECT_EQ(device_wait_timeout_ns(), ms * 1'000'000) << ms;
  }
  for (std::uint64_t ms : {std::uint64_t{0}, kDayMs + 1}) {
    ScopedEnv env(kBudget, std::to_string(ms));
    EXPECT_THROW(device_wait_timeout_ns(), Error) << ms;
  }
}

}  // namespace
}  // namespace symm
