// The settings layer: every SYMM_* variable's one parser, its default, and the message of
// a bad value (variable, value, what is allowed, how to fix it).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scoped_env.hpp"
#include "symm/common/error.hpp"
#include "symm/host/settings.hpp"

namespace {

namespace settings = symm::settings;

std::string refusal(const std::function<void()>& read) {
  try {
    read();
  } catch (const symm::Error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Settings, UnsetOrEmptyMeansTheDefault) {
  for (const char* value : {static_cast<const char*>(""), static_cast<const char*>(nullptr)}) {
    const char* names[] = {"SYMM_LOG_LEVEL",   "SYMM_RANK_TIMEOUT_S",   "SYMM_BOOTSTRAP_TIMEOUT_MS",
                           "SYMM_HEAP_SIZE",   "SYMM_HEAP_TRANSPORT",   "SYMM_HEAP_CHECK_EVERY",
                           "SYMM_WAIT_TIMEOUT_MS", "SYMM_LOCAL_RANK"};
    std::vector<std::unique_ptr<ScopedEnv>> scoped;
    for (const char* name : names)
      scoped.push_back(value ? std::make_unique<ScopedEnv>(name, value) : std::make_unique<ScopedEnv>(name, std::nullopt));
    EXPECT_EQ(settings::log_level(), symm::log::Level::info);
    EXPECT_FALSE(settings::rank_timeout());
    EXPECT_EQ(settings::bootstrap_timeout().count(), 120000);
    EXPECT_FALSE(settings::heap_size());
    EXPECT_EQ(settings::heap_transport(), symm::HeapTransport::automatic);
    EXPECT_EQ(settings::heap_check_every(), 1u);
    EXPECT_FALSE(settings::wait_timeout_ms());
    EXPECT_FALSE(settings::local_rank());
    EXPECT_EQ(settings::check_all(), "");
  }
}

TEST(Settings, GoodValuesAreRead) {
  {
    ScopedEnv env("SYMM_LOG_LEVEL", "DEBUG");
    EXPECT_EQ(settings::log_level(), symm::log::Level::debug);
  }
  {
    ScopedEnv env("SYMM_RANK_TIMEOUT_S", "1.5");
    EXPECT_EQ(settings::rank_timeout()->count(), 1500);
  }
  {
    ScopedEnv env("SYMM_HEAP_SIZE", "512MiB");
    EXPECT_EQ(settings::heap_size(), 512u << 20);
  }
  {
    ScopedEnv env("SYMM_HEAP_TRANSPORT", "ipc");
    EXPECT_EQ(settings::heap_transport(), symm::HeapTransport::ipc);
  }
  {
    ScopedEnv env("SYMM_HEAP_CHECK_EVERY", "0");
    EXPECT_EQ(settings::heap_check_every(), 0u);
  }
  {
    ScopedEnv env("SYMM_LOCAL_RANK", "3");
    EXPECT_EQ(settings::local_rank(), 3);
  }
}

struct BadSetting {
  const char* name;
  const char* value;
  std::function<void()> read;
  const char* allowed;  // a part of what the message says is allowed
};

TEST(Settings, BadValuesAreRefusedNamingVariableValueAndChoices) {
  const BadSetting table[] = {
      {"SYMM_LOG_LEVEL", "verbose", [] { settings::log_level(); }, "error, warn, info or debug"},
      {"SYMM_RANK_TIMEOUT_S", "-1", [] { settings::rank_timeout(); }, "seconds from 0"},
      {"SYMM_RANK_TIMEOUT_S", "604801", [] { settings::rank_timeout(); }, "604800 (a week)"},
      {"SYMM_BOOTSTRAP_TIMEOUT_MS", "0", [] { settings::bootstrap_timeout(); }, "from 1 to"},
      {"SYMM_BOOTSTRAP_TIMEOUT_MS", "1.5", [] { settings::bootstrap_timeout(); }, "whole milliseconds"},
      {"SYMM_HEAP_SIZE", "0", [] { settings::heap_size(); }, "a size > 0"},
      {"SYMM_HEAP_SIZE", "8 parsecs", [] { settings::heap_size(); }, "unknown unit"},
      {"SYMM_HEAP_TRANSPORT", "nvshmem", [] { settings::heap_transport(); }, "auto, vmm or ipc"},
      {"SYMM_HEAP_CHECK_EVERY", "-1", [] { settings::heap_check_every(); }, ">= 0"},
      {"SYMM_WAIT_TIMEOUT_MS", "86400001", [] { settings::wait_timeout_ms(); }, "86400000 (a day)"},
      {"SYMM_LOCAL_RANK", "x", [] { settings::local_rank(); }, "a rank index"},
  };
  for (const BadSetting& bad : table) {
    ScopedEnv env(bad.name, bad.value);
    const std::string message = refusal(bad.read);
    SCOPED_TRACE(message);
    EXPECT_NE(message.find(std::string(bad.name) + "='" + bad.value + "' is not valid"), std::string::npos);
    EXPECT_NE(message.find(bad.allowed), std::string::npos);
    EXPECT_NE(message.find("unset it"), std::string::npos) << "says how to fix it";
    EXPECT_EQ(settings::check_all(), message) << "check_all reports the same line";
  }
}

TEST(Settings, CheckAllReportsEveryBadVariableOnItsOwnLine) {
  ScopedEnv level("SYMM_LOG_LEVEL", "loud");
  ScopedEnv wait("SYMM_WAIT_TIMEOUT_MS", "0");
  const std::string problems = settings::check_all();
  EXPECT_NE(problems.find("SYMM_LOG_LEVEL='loud'"), std::string::npos) << problems;
  EXPECT_NE(problems.find("\nSYMM_WAIT_TIMEOUT_MS='0'"), std::string::npos) << problems;
}

TEST(Settings, TransportNamesRoundTrip) {
  for (auto t : {symm::HeapTransport::automatic, symm::HeapTransport::vmm, symm::HeapTransport::ipc})
    EXPECT_EQ(symm::find_transport(symm::transport_name(t)), t);
  EXPECT_FALSE(symm::find_transport("VMM"));
}

}  // namespace
