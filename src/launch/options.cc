#include "symm/host/options.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "env.hpp"
#include "limits.hpp"
#include "symm/common/error.hpp"
#include "symm/host/input_checks.hpp"

namespace symm {
namespace {

struct Unit {
  std::string_view name;  // lower case
  std::uint64_t bytes;
};

constexpr std::uint64_t kKi = 1024, kK = 1000;
constexpr std::array<Unit, 14> kUnits{{
    {"", 1},           {"b", 1},
    {"k", kKi},        {"kb", kK},            {"kib", kKi},
    {"m", kKi * kKi},  {"mb", kK * kK},       {"mib", kKi * kKi},
    {"g", kKi * kKi * kKi}, {"gb", kK * kK * kK}, {"gib", kKi * kKi * kKi},
    {"t", kKi * kKi * kKi * kKi}, {"tb", kK * kK * kK * kK}, {"tib", kKi * kKi * kKi * kKi},
}};

constexpr std::string_view kAccepted =
    "a number with an optional unit: B, KB, MB, GB, TB (powers of 1000), "
    "KiB, MiB, GiB, TiB or K, M, G, T (powers of 1024), e.g. 8GiB, 512MiB, 1e9";

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

[[noreturn]] void bad_size(std::string_view text, std::string_view why) {
  throw Error(fmt::format("invalid size '{}': {}; expected {}", text, why, kAccepted));
}

// Length of the leading number: digits, optional fraction, optional exponent.
std::size_t number_length(std::string_view text) {
  std::size_t i = 0;
  auto digits = [&] {
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    digits();
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t mark = i++;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    std::size_t exponent_start = i;
    digits();
    if (i == exponent_start) i = mark;  // "1e" or "5EB": the 'e' starts a unit
  }
  return i;
}

}  // namespace

std::uint64_t parse_bytes(std::string_view input) {
  const std::string_view text = trim(input);
  const std::size_t split = number_length(text);
  const std::string_view number = text.substr(0, split);
  std::string unit_name(trim(text.substr(split)));
  std::transform(unit_name.begin(), unit_name.end(), unit_name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });

  if (number.empty() || number == "+" || number == "-" || number == ".") {
    bad_size(input, "no number");
  }
  if (number.front() == '-') bad_size(input, "a size cannot be negative");
  auto unit = std::find_if(kUnits.begin(), kUnits.end(),
                           [&](const Unit& u) { return u.name == unit_name; });
  if (unit == kUnits.end()) bad_size(input, fmt::format("unknown unit '{}'", trim(text.substr(split))));

  // Whole numbers are exact; numbers with a fraction or exponent go through long double
  // and must come out as a whole number of bytes.
  const std::string_view digits = number.front() == '+' ? number.substr(1) : number;
  std::uint64_t whole = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), whole);
  if (ec == std::errc() && end == digits.data() + digits.size()) {
    if (whole > std::numeric_limits<std::uint64_t>::max() / unit->bytes) {
      bad_size(input, "too large (more than 2^64 - 1 bytes)");
    }
    return whole * unit->bytes;
  }
  const long double value = std::strtold(std::string(number).c_str(), nullptr) * unit->bytes;
  if (!std::isfinite(value) || value >= 18446744073709551616.0L) {
    bad_size(input, "too large (more than 2^64 - 1 bytes)");
  }
  if (value != std::floor(value)) bad_size(input, "not a whole number of bytes");
  return static_cast<std::uint64_t>(value);
}

std::string format_bytes(std::uint64_t bytes) {
  constexpr std::array<std::string_view, 4> names{"TiB", "GiB", "MiB", "KiB"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::uint64_t unit = std::uint64_t{1} << (10 * (names.size() - i));
    if (bytes != 0 && bytes % unit == 0) return fmt::format("{} {}", bytes / unit, names[i]);
  }
  return fmt::format("{} B", bytes);
}

CLI::Option* add_bytes_option(CLI::App& app, const std::string& name, std::uint64_t& value,
                              const std::string& description) {
  CLI::Validator is_size(
      [](std::string& text) -> std::string {
        try {
          parse_bytes(text);
          return {};
        } catch (const Error& e) {
          return e.what();
        }
      },
      "SIZE");
  return app
      .add_option_function<std::string>(
          name, [&value](const std::string& text) { value = parse_bytes(text); }, description)
      ->check(is_size)
      ->default_str(format_bytes(value));
}

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The flag of `app` or its subcommands nearest to `given` ("--n_repeats" -> "--n_repeat"),
// empty when none is close (at most a third of the name differs).
std::string nearest_flag(const CLI::App& app, std::string_view given) {
  const std::string_view name = given.substr(0, given.find('='));
  std::vector<const CLI::App*> apps{&app};
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) apps.push_back(sub);
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, name.size() / 3) + 1;
  for (const CLI::App* a : apps) {
    for (const CLI::Option* option : a->get_options()) {
      for (const std::string& l : option->get_lnames()) {
        const std::string flag = "--" + l;
        if (const std::size_t d = edit_distance(name, flag); d < best_distance) best_distance = d, best = flag;
      }
    }
  }
  return best;
}

}  // namespace

int parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return -1;
  } catch (const CLI::ParseError& e) {
    if (app.exit(e) == 0) return 0;  // --help
    if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr) return 2;
    for (const std::string& extra : app.remaining(true)) {
      if (!extra.starts_with("--")) continue;
      if (const std::string flag = nearest_flag(app, extra); !flag.empty())
        fmt::print(stderr, "{}: did you mean {}?\n", extra, flag);
    }
    return 2;  // every bad command line
  }
}

void add_launch_options(CLI::App& app, LaunchOptions& options) {
  app.add_option("-r,--num_ranks", options.num_ranks,
                 "number of ranks to run (default: one per visible GPU; under torchrun, "
                 "mpirun or srun: the launcher's ranks)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            const auto n = detail::parse_integer(text);
            // Not a number: left to CLI11's conversion error, which names the flag too.
            return n ? check_between("-r", *n, 1, detail::kMaxRanks) : std::string{};
          },
          "1 to " + std::to_string(detail::kMaxRanks)));
  CLI::Validator is_seconds(
      [](std::string& text) -> std::string {
        return detail::parse_seconds(text) ? std::string{}
                                           : fmt::format("'{}' is not 0 (no limit) or a decimal number of "
                                                         "seconds from 0.001 to 604800 (a week)",
                                                         text);
      },
      "SECONDS");
  app.add_option_function<std::string>(
         "--rank_timeout",
         [&options](const std::string& text) { options.rank_timeout = *detail::parse_seconds(text); },
         "end every rank when the job runs longer than this many seconds "
         "(0: no limit; default: SYMM_RANK_TIMEOUT_S or no limit)")
      ->check(is_seconds);
}

}  // namespace symm
