#pragma once
// The runtime's SYMM_* knobs, read from the environment.
#include <cstdint>
#include <optional>
#include <string_view>

namespace symm {

// A whole non-negative number from `name`; nullopt when unset or empty. Anything else
// is a symm::Error naming the variable and what it means (`meaning`).
std::optional<std::uint64_t> env_unsigned(const char* name, std::string_view meaning);

}  // namespace symm
