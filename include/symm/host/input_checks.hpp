#pragma once
// Checks of command-line values that every symm program shares, each returning one line
// that names the flag, the value and what is allowed (empty when the value is fine).
// Programs run them after parsing and before any rank or GPU starts: CLI11's range
// validators print their bounds instead ("not in range 0.000000 to 1797...", 309 digits).
//
//   std::string why = symm::check_at_least("--n_repeat", n_repeat, 1);
//   if (why.empty()) why = symm::check_output_file("-o/--output_file", output_file);
#include <cstdint>
#include <string>
#include <string_view>

namespace symm {

// "--n_repeat must be >= 1 (got 0)"
std::string check_at_least(std::string_view flag, std::int64_t value, std::int64_t min);

// "--threads must be between 32 and 1024 (got 8)"
std::string check_between(std::string_view flag, std::int64_t value, std::int64_t min,
                          std::int64_t max);

// Empty when `path` is empty (no output wanted) or a file can be created in its directory
// (results are written through a temporary file there); else why not and what to do. Run
// before any measurement, so that a bad path fails at once, not after the run.
std::string check_output_file(std::string_view flag, const std::string& path);

}  // namespace symm
