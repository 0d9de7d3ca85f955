#include "env.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "limits.hpp"
#include "symm/common/error.hpp"
#include "symm/host/unique_fd.hpp"

namespace symm::detail {

EnvLookup process_env() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

EnvLookup env_lookup(const EnvMap& env) {
  return [env](std::string_view name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

EnvMap read_process_environ(pid_t pid) {
  const std::string path = fmt::format("/proc/{}/environ", pid);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    const int error = errno;
    const std::string what = fmt::format("cannot read {}: {}", path, system_error_text(error));
    if (error == EMFILE || error == ENFILE || error == ENOMEM) throw OutOfResourcesError(what);
    throw Error(what);
  }
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("cannot read {}: {}", path, system_error_text(errno)));
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  EnvMap env;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    std::string_view entry(text.data() + start, end - start);
    if (auto eq = entry.find('='); eq != std::string_view::npos) {
      env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
    }
    start = end + 1;
  }
  return env;
}

std::optional<long long> parse_integer(std::string_view text) {
  long long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<std::chrono::milliseconds> parse_seconds(std::string_view text) {
  const std::string copy(text);
  char* end = nullptr;
  errno = 0;
  // strtod also takes leading blanks, hexadecimal, "inf" and "nan": none is a decimal number.
  if (copy.empty() || copy.find_first_not_of("0123456789.eE+-") != std::string::npos) return std::nullopt;
  const double seconds = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno != 0 || !std::isfinite(seconds) || seconds < 0 ||
      (seconds > 0 && seconds < 0.001) || seconds * 1000 > kMaxTimeLimitMs) {
    return std::nullopt;
  }
  return std::chrono::milliseconds(std::llround(seconds * 1000));
}

}  // namespace symm::detail
