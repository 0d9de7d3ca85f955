#include "symm/host/settings.hpp"

#include <fmt/format.h>
#include <strings.h>

#include <array>
#include <cstdlib>
#include <functional>
#include <limits>

#include "env.hpp"
#include "limits.hpp"
#include "symm/common/error.hpp"
#include "symm/host/options.hpp"

namespace symm::settings {
namespace {

// The variable's value; nullopt when unset or empty (both mean the default).
std::optional<std::string> read(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

[[noreturn]] void refuse(const char* name, const std::string& value, std::string_view allowed) {
  throw Error(fmt::format("{}='{}' is not valid: expected {}; fix it, or unset it for the default",
                          name, value, allowed));
}

// A whole number from min to max; the message spells the range as `allowed`.
std::optional<long long> read_integer(const char* name, long long min, long long max,
                                      std::string_view allowed) {
  const auto text = read(name);
  if (!text) return std::nullopt;
  const auto value = detail::parse_integer(*text);
  if (!value || *value < min || *value > max) refuse(name, *text, allowed);
  return value;
}

// 0 would trap every wait at once; beyond a day the nanoseconds near the clock's range.
constexpr long long kMaxWaitTimeoutMs = 24LL * 3600 * 1000;

std::optional<log::Level> parse_log_level(std::string_view text) {
  constexpr struct {
    std::string_view name;
    log::Level level;
  } kNames[] = {{"error", log::Level::error}, {"warn", log::Level::warn},  {"warning", log::Level::warn},
                {"info", log::Level::info},   {"debug", log::Level::debug}, {"0", log::Level::error},
                {"1", log::Level::warn},      {"2", log::Level::info},      {"3", log::Level::debug}};
  for (const auto& entry : kNames) {
    if (entry.name.size() == text.size() &&
        ::strncasecmp(entry.name.data(), text.data(), text.size()) == 0)
      return entry.level;
  }
  return std::nullopt;
}

}  // namespace

log::Level log_level() {
  const auto text = read("SYMM_LOG_LEVEL");
  if (!text) return log::Level::info;
  const auto level = parse_log_level(*text);
  if (!level) refuse("SYMM_LOG_LEVEL", *text, "error, warn, info or debug (or 0 to 3)");
  return *level;
}

std::optional<std::chrono::milliseconds> rank_timeout() {
  const auto text = read("SYMM_RANK_TIMEOUT_S");
  if (!text) return std::nullopt;
  const auto limit = detail::parse_seconds(*text);
  if (!limit) refuse("SYMM_RANK_TIMEOUT_S", *text, "0 (no limit) or seconds from 0.001 to 604800 (a week), in decimal");
  return limit;
}

std::chrono::milliseconds bootstrap_timeout() {
  const auto ms = read_integer("SYMM_BOOTSTRAP_TIMEOUT_MS", 1, detail::kMaxTimeLimitMs,
                               fmt::format("whole milliseconds from 1 to {} (a week)", detail::kMaxTimeLimitMs));
  return std::chrono::milliseconds(ms.value_or(detail::kDefaultBootstrapTimeoutMs));
}

std::optional<std::uint64_t> heap_size() {
  const auto text = read("SYMM_HEAP_SIZE");
  if (!text) return std::nullopt;
  std::uint64_t bytes = 0;
  try {
    bytes = parse_bytes(*text);
  } catch (const Error& e) {
    refuse("SYMM_HEAP_SIZE", *text, fmt::format("a size > 0 ({})", e.what()));
  }
  if (bytes == 0) refuse("SYMM_HEAP_SIZE", *text, "a size > 0, e.g. 8GiB, 512MiB, 1e9");
  return bytes;
}

HeapTransport heap_transport() {
  const auto text = read("SYMM_HEAP_TRANSPORT");
  if (!text) return HeapTransport::automatic;
  const auto transport = find_transport(*text);
  if (!transport) refuse("SYMM_HEAP_TRANSPORT", *text, "auto, vmm or ipc");
  return *transport;
}

std::uint64_t heap_check_every() {
  return read_integer("SYMM_HEAP_CHECK_EVERY", 0, std::numeric_limits<long long>::max(),
                      "a whole number of allocations >= 0 (0: never check)")
      .value_or(1);
}

std::optional<std::uint64_t> wait_timeout_ms() {
  return read_integer("SYMM_WAIT_TIMEOUT_MS", 1, kMaxWaitTimeoutMs,
                      fmt::format("whole milliseconds from 1 to {} (a day)", kMaxWaitTimeoutMs));
}

std::optional<int> local_rank() {
  const auto rank = read_integer("SYMM_LOCAL_RANK", 0, detail::kMaxRanks - 1,
                                 fmt::format("a rank index from 0 to {} (symm::launch sets it)",
                                             detail::kMaxRanks - 1));
  if (!rank) return std::nullopt;
  return static_cast<int>(*rank);
}

std::string check_all() {
  const std::array<std::function<void()>, 8> readers = {
      [] { log_level(); },      [] { rank_timeout(); },     [] { bootstrap_timeout(); },
      [] { heap_size(); },      [] { heap_transport(); },   [] { heap_check_every(); },
      [] { wait_timeout_ms(); }, [] { local_rank(); }};
  std::string problems;
  for (const auto& read_one : readers) {
    try {
      read_one();
    } catch (const Error& e) {
      problems += (problems.empty() ? "" : "\n") + std::string(e.what());
    }
  }
  return problems;
}

}  // namespace symm::settings
