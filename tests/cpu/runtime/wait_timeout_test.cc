// SYMM_WAIT_TIMEOUT_MS, the budget of every device-side wait: read without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "symm/common/error.hpp"
#include "symm/host/runtime.hpp"

namespace symm {
namespace {

struct ScopedEnv {
  explicit ScopedEnv(const char* value) { ::setenv("SYMM_WAIT_TIMEOUT_MS", value, 1); }
  ~ScopedEnv() { ::unsetenv("SYMM_WAIT_TIMEOUT_MS"); }
};

TEST(WaitTimeout, DefaultAndGivenMilliseconds) {
  ::unsetenv("SYMM_WAIT_TIMEOUT_MS");
  EXPECT_EQ(device_wait_timeout_ns(), device::kDefaultWaitTimeoutMs * 1'000'000);
  ScopedEnv env("250");
  EXPECT_EQ(device_wait_timeout_ns(), 250'000'000u);
}

// 0 would trap every wait at once; a huge value overflows the nanosecond clock budget.
TEST(WaitTimeout, RefusesZeroHugeAndNonNumbers) {
  for (const char* bad : {"0", "100000000000", "-1", "ten"}) {
    ScopedEnv env(bad);
    EXPECT_THROW(device_wait_timeout_ns(), Error) << bad;
  }
}

// 1 ms to a day: accepted at each bound and just inside, refused just outside.
TEST(WaitTimeout, BoundsAreOneMillisecondAndADay) {
  constexpr std::uint64_t kDayMs = 24ull * 3600 * 1000;
  for (std::uint64_t ms : {std::uint64_t{1}, std::uint64_t{2}, kDayMs - 1, kDayMs}) {
    ScopedEnv env(std::to_string(ms).c_str());
    EXPECT_EQ(device_wait_timeout_ns(), ms * 1'000'000) << ms;
  }
  for (std::uint64_t ms : {std::uint64_t{0}, kDayMs + 1}) {
    ScopedEnv env(std::to_string(ms).c_str());
    EXPECT_THROW(device_wait_timeout_ns(), Error) << ms;
  }
}

}  // namespace
}  // namespace symm
