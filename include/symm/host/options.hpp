#pragma once
// Command-line helpers shared by every symm program (CLI11).
//
//   CLI::App app{"my symm program"};
//   symm::LaunchOptions launch;
//   symm::add_launch_options(app, launch);            // -r/--num_ranks, --rank_timeout
//   std::size_t heap = 1ull << 30;
//   symm::add_bytes_option(app, "--heap_size", heap, "symmetric heap per rank");
//   CLI11_PARSE(app, argc, argv);                     // bad input: message + exit code
#include <cstdint>
#include <string>
#include <string_view>

#include "symm/host/launch.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace symm {

// Parses argv into `app` (and its subcommands). Returns -1 to go on, 0 after --help, 2
// for a bad command line: CLI11's message, and for an unknown flag the nearest known one
// ("did you mean --n_repeat?"), so old or misspelled names are answered, not just refused.
int parse_command_line(CLI::App& app, int argc, char** argv);

// Adds -r/--num_ranks (>= 1; default: one rank per visible GPU) and --rank_timeout
// (seconds, fractions allowed; 0 = no limit; default SYMM_RANK_TIMEOUT_S).
void add_launch_options(CLI::App& app, LaunchOptions& options);

// Parses a byte count: an integer or decimal number (exponents allowed: "1e9") with an
// optional unit, case-insensitive, space allowed before it: B; KB, MB, GB, TB (powers
// of 1000); KiB, MiB, GiB, TiB and the short K, M, G, T (powers of 1024). Throws
// symm::Error naming the input and what is accepted for anything else (negative,
// fractional bytes, overflow, unknown unit).
std::uint64_t parse_bytes(std::string_view text);

// "8 GiB", "512 MiB", "1000 B": the largest binary unit that divides the value.
std::string format_bytes(std::uint64_t bytes);

// A size option parsed with parse_bytes; CLI11 reports bad input as a usage error.
CLI::Option* add_bytes_option(CLI::App& app, const std::string& name, std::uint64_t& value,
                              const std::string& description);

}  // namespace symm
