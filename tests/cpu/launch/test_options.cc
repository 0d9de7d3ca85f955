// Command-line helpers: sizes, launch options, and what a symm program does with bad input.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <filesystem>
#include <ostream>

#include "process_harness.hpp"
#include "symm/common/error.hpp"
#include "symm/host/input_checks.hpp"
#include "symm/host/options.hpp"

namespace {

using symm::parse_bytes;

TEST(ParseBytes, AcceptsNumbersWithUnits) {
  EXPECT_EQ(parse_bytes("0"), 0u);
  EXPECT_EQ(parse_bytes("4096"), 4096u);
  EXPECT_EQ(parse_bytes("8GiB"), 8ull << 30);
  EXPECT_EQ(parse_bytes("8 GiB"), 8ull << 30);
  EXPECT_EQ(parse_bytes("512MiB"), 512ull << 20);
  EXPECT_EQ(parse_bytes("512mib"), 512ull << 20);
  EXPECT_EQ(parse_bytes("2K"), 2048u);
  EXPECT_EQ(parse_bytes("2KB"), 2000u);
  EXPECT_EQ(parse_bytes("3G"), 3ull << 30);
  EXPECT_EQ(parse_bytes("1TiB"), 1ull << 40);
  EXPECT_EQ(parse_bytes("1e9"), 1000000000u);
  EXPECT_EQ(parse_bytes("1.5KiB"), 1536u);
  EXPECT_EQ(parse_bytes("2.5e3 B"), 2500u);
  EXPECT_EQ(parse_bytes(" 7b "), 7u);
  EXPECT_EQ(parse_bytes("18446744073709551615"), 18446744073709551615ull);
}

TEST(ParseBytes, RejectsWithAClearMessage) {
  auto message_of = [](const char* text) -> std::string {
    try {
      parse_bytes(text);
    } catch (const symm::Error& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_NE(message_of("12XB").find("unknown unit 'XB'"), std::string::npos) << message_of("12XB");
  EXPECT_NE(message_of("12XB").find("GiB"), std::string::npos) << "the message lists the accepted units";
  EXPECT_NE(message_of("").find("no number"), std::string::npos);
  EXPECT_NE(message_of("GiB").find("no number"), std::string::npos);
  EXPECT_NE(message_of("-1GiB").find("negative"), std::string::npos);
  EXPECT_NE(message_of("0.3").find("whole number"), std::string::npos);
  EXPECT_NE(message_of("16384PiB").find("unknown unit"), std::string::npos);
  EXPECT_NE(message_of("17179869184GiB").find("too large"), std::string::npos);
  EXPECT_NE(message_of("1e30").find("too large"), std::string::npos);
  EXPECT_NE(message_of("1.2.3").find("invalid size '1.2.3'"), std::string::npos);
}

TEST(FormatBytes, PicksTheLargestExactBinaryUnit) {
  EXPECT_EQ(symm::format_bytes(8ull << 30), "8 GiB");
  EXPECT_EQ(symm::format_bytes(1536), "1536 B");
  EXPECT_EQ(symm::format_bytes(3ull << 20), "3 MiB");
  EXPECT_EQ(symm::format_bytes(0), "0 B");
  EXPECT_EQ(parse_bytes(symm::format_bytes(5ull << 40)), 5ull << 40);
}

// Parses args (without the program name) the way CLI11_PARSE does; returns the error.
std::string parse(std::vector<std::string> args, symm::LaunchOptions& launch, std::uint64_t& heap) {
  CLI::App app{"test"};
  symm::add_launch_options(app, launch);
  symm::add_bytes_option(app, "--heap_size", heap, "heap");
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments in reverse order
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return {};
}

TEST(LaunchOptionsCli, ParsesGoodInput) {
  symm::LaunchOptions launch;
  std::uint64_t heap = 0;
  EXPECT_EQ(parse({"-r", "4", "--rank_timeout", "1.5", "--heap_size", "2GiB"}, launch, heap), "");
  EXPECT_EQ(launch.num_ranks, 4);
  EXPECT_EQ(launch.rank_timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(heap, 2ull << 30);
  EXPECT_EQ(parse({"--num_ranks=2"}, launch, heap), "");
  EXPECT_EQ(launch.num_ranks, 2);
  // 0 given is "no limit", not "not given": SYMM_RANK_TIMEOUT_S must not override it.
  symm::LaunchOptions no_limit;
  EXPECT_FALSE(no_limit.rank_timeout.has_value());
  EXPECT_EQ(parse({"--rank_timeout", "0"}, no_limit, heap), "");
  EXPECT_EQ(no_limit.rank_timeout, std::chrono::milliseconds(0));
}

TEST(LaunchOptionsCli, RejectsBadInput) {
  symm::LaunchOptions launch;
  std::uint64_t heap = 0;
  EXPECT_NE(parse({"-r", "0"}, launch, heap).find("num_ranks"), std::string::npos);
  EXPECT_NE(parse({"-r", "abc"}, launch, heap), "");
  EXPECT_NE(parse({"-r", "-3"}, launch, heap), "");
  EXPECT_NE(parse({"-r", "100000"}, launch, heap), "");
  EXPECT_NE(parse({"--rank_timeout", "soon"}, launch, heap).find("is not 0 (no limit) or a decimal number of seconds"),
            std::string::npos);
  // Under a millisecond would round to 0, which means no limit.
  EXPECT_NE(parse({"--rank_timeout", "0.0004"}, launch, heap).find("from 0.001 to 604800"), std::string::npos);
  EXPECT_NE(parse({"--rank_timeout", "-1"}, launch, heap), "");
  EXPECT_NE(parse({"--heap_size", "12XB"}, launch, heap).find("unknown unit 'XB'"), std::string::npos);
}

// A real symm program given bad input prints why and exits non-zero, starting nothing.
struct BadInput {
  std::string name;
  std::vector<std::string> args;
  std::string expected;
};

// ctest names each case after what gtest prints of its parameter: the name, not the bytes.
void PrintTo(const BadInput& input, std::ostream* os) { *os << input.name; }

class BadCommandLine : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadCommandLine, ExitsNonZeroWithAMessage) {
  const auto result = symm::test::run_driver(GetParam().args);
  ASSERT_TRUE(result.finished) << result.output;
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find(GetParam().expected), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("collectives ok"), std::string::npos) << "no rank may start";
}

INSTANTIATE_TEST_SUITE_P(
    Driver, BadCommandLine,
    ::testing::Values(BadInput{"ZeroRanks", {"-r", "0"}, "num_ranks"},
                      BadInput{"RanksNotANumber", {"-r", "abc"}, "num_ranks"},
                      BadInput{"UnknownSizeUnit", {"--heap_size", "12XB"}, "unknown unit 'XB'"},
                      BadInput{"TimeoutNotANumber", {"--rank_timeout", "x"}, "is not 0 (no limit) or a decimal number of seconds"},
                      BadInput{"UnknownOption", {"--no_such_option"}, "no_such_option"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; });

TEST(InputChecks, RangesReadLikeAPersonWroteThem) {
  EXPECT_EQ(symm::check_at_least("--n_repeat", 0, 1), "--n_repeat must be >= 1 (got 0)");
  EXPECT_EQ(symm::check_at_least("--n_repeat", 1, 1), "");
  EXPECT_EQ(symm::check_between("--threads", 8, 32, 1024), "--threads must be between 32 and 1024 (got 8)");
  EXPECT_EQ(symm::check_between("--threads", 1024, 32, 1024), "");
}

TEST(InputChecks, OutputFileMustBeCreatableBeforeAnyRun) {
  EXPECT_EQ(symm::check_output_file("-o", ""), "") << "empty: no output";
  const symm::test::TempDir dir;
  EXPECT_EQ(symm::check_output_file("-o", dir.path() + "/r.json"), "");
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "the probe file is removed";
  const std::string missing = symm::check_output_file("-o", dir.path() + "/no/r.json");
  EXPECT_NE(missing.find("-o " + dir.path() + "/no/r.json: cannot create a file"), std::string::npos) << missing;
  EXPECT_NE(symm::check_output_file("-o", dir.path()).find("is a directory"), std::string::npos);
}

}  // namespace
