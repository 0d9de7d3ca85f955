#include "symm/host/log.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <strings.h>

#include <fmt/format.h>

namespace symm::log {
namespace {

std::atomic<int> g_rank{-1};
std::atomic<int> g_world{0};

Level level_from_env() {
  const char* text = std::getenv("SYMM_LOG_LEVEL");
  if (text == nullptr || *text == '\0') return Level::info;
  const struct {
    const char* name;
    Level level;
  } names[] = {{"error", Level::error}, {"warn", Level::warn},  {"warning", Level::warn},
               {"info", Level::info},   {"debug", Level::debug}, {"0", Level::error},
               {"1", Level::warn},      {"2", Level::info},      {"3", Level::debug}};
  for (const auto& entry : names) {
    if (::strcasecmp(text, entry.name) == 0) return entry.level;
  }
  // Unknown values must not silence errors: say so once and keep the default.
  std::string note = fmt::format(
      "symm: warning: SYMM_LOG_LEVEL={} is not one of error, warn, info, debug; using info\n",
      text);
  [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, note.data(), note.size());
  return Level::info;
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

bool enabled(Level level) { return static_cast<int>(level) <= static_cast<int>(current_level()); }

void set_rank(int rank, int world) {
  g_world.store(world);
  g_rank.store(rank);
}

void error(std::string_view message) { emit(Level::error, "error: ", message); }
void warn(std::string_view message) { emit(Level::warn, "warning: ", message); }
void info(std::string_view message) { emit(Level::info, "", message); }
void debug(std::string_view message) { emit(Level::debug, "debug: ", message); }

}  // namespace symm::log
