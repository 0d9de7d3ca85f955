#include "symm/host/input_checks.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "symm/common/error.hpp"

namespace symm {

std::string check_at_least(std::string_view flag, std::int64_t value, std::int64_t min) {
  if (value >= min) return {};
  return fmt::format("{} must be >= {} (got {})", flag, min, value);
}

std::string check_between(std::string_view flag, std::int64_t value, std::int64_t min,
                          std::int64_t max) {
  if (value >= min && value <= max) return {};
  return fmt::format("{} must be between {} and {} (got {})", flag, min, max, value);
}

std::string check_output_file(std::string_view flag, const std::string& path) {
  if (path.empty()) return {};
  namespace fs = std::filesystem;
  const fs::path file(path);
  std::error_code ec;
  if (fs::is_directory(file, ec)) return fmt::format("{} {} is a directory; give a file name", flag, path);
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  // Creating and removing a file is the one test that covers permissions, read-only
  // mounts and a missing directory alike.
  std::string probe = (dir / ".symm_output_probe_XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0)
    return fmt::format("{} {}: cannot create a file in {}: {} (create the directory, or choose "
                       "another path)",
                       flag, path, dir.string(), system_error_text(errno));
  close(fd);
  unlink(probe.c_str());
  return {};
}

}  // namespace symm
