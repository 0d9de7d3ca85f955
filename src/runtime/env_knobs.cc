#include "env_knobs.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <string_view>

#include "symm/common/error.hpp"

namespace symm {

std::optional<std::uint64_t> env_unsigned(const char* name, std::string_view meaning) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  const std::string_view value = text;
  std::uint64_t parsed = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (error != std::errc() || end != value.data() + value.size()) {
    throw Error(fmt::format("{}='{}' is not a whole non-negative number ({})", name, value, meaning));
  }
  return parsed;
}

}  // namespace symm
