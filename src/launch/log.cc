#include "symm/host/log.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <exception>
#include <string>

#include <fmt/format.h>

#include "symm/host/settings.hpp"

namespace symm::log {
namespace {

std::atomic<int> g_rank{-1};
std::atomic<int> g_world{0};

// A bad value must not silence errors, nor may logging throw: say so once and keep info
// (programs refuse it at start-up, settings::check_all; this covers code that never asks).
Level level_from_env() {
  try {
    return settings::log_level();
  } catch (const std::exception& e) {
    const std::string note = fmt::format("symm: warning: {}; using info\n", e.what());
    [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, note.data(), note.size());
    return Level::info;
  }
}

Level current_level() {
  static const Level level = level_from_env();
  return level;
}

void emit(Level level, std::string_view tag, std::string_view message) {
  if (!enabled(level)) return;
  const int rank = g_rank.load(std::memory_order_relaxed);
  std::string line = rank >= 0 ? fmt::format("[{}/{}] ", rank, g_world.load()) : "symm: ";
  line += tag;
  line += message;
  if (line.empty() || line.back() != '\n') line += '\n';
  // One write(2) per line keeps lines of concurrent ranks whole (stderr is a shared
  // pipe or terminal); retry on EINTR and partial writes.
  std::size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

// Errors print at every level, so they never read the variable: a refusal of a bad
// SYMM_LOG_LEVEL is then said once, not after a warning about the same value.
bool enabled(Level level) {
  return level == Level::error || static_cast<int>(level) <= static_cast<int>(current_level());
}

void set_rank(int rank, int world) {
  g_world.store(world);
  g_rank.store(rank);
}

void error(std::string_view message) { emit(Level::error, "error: ", message); }
void warn(std::string_view message) { emit(Level::warn, "warning: ", message); }
void info(std::string_view message) { emit(Level::info, "", message); }
void debug(std::string_view message) { emit(Level::debug, "debug: ", message); }

}  // namespace symm::log
