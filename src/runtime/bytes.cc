#include "bytes.hpp"

#include <fmt/format.h>

#include <array>

namespace symm {

std::string describe_bytes(std::size_t bytes) {
  static constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} bytes", bytes);
  return fmt::format("{:.2f} {} ({} bytes)", value, kUnits[unit], bytes);
}

std::string suggest_size(std::size_t bytes) {
  constexpr std::size_t kGiB = std::size_t{1} << 30;
  const std::size_t needed_gib = bytes / kGiB + (bytes % kGiB != 0 ? 1 : 0);
  std::size_t gib = 1;
  while (gib < needed_gib) gib *= 2;
  return fmt::format("{}GiB", gib);
}

}  // namespace symm
