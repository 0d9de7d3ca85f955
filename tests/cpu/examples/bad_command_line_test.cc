// Bad command lines of the real programs (examples 00-06, symm-bench, a GEMM + all-scatter
// program): each must be refused with exit code 2, never a signal, with a message naming
// the flag or variable, decided before any GPU work (this runs on machines without one).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run_program.hpp"

namespace {

struct BadInput {
  std::string program;
  std::vector<std::string> args;
  std::string expected;              // a part of the message: the flag or variable, named
  std::vector<std::string> env = {};  // "NAME=value" added to the environment
};

constexpr const char* kMissingDir = "/nonexistent-symm-test-dir/results.json";

void expect_refused_before_gpu_work(const std::vector<BadInput>& table) {
  for (const BadInput& bad : table) {
    std::string command = bad.program.substr(bad.program.rfind('/') + 1);
    for (const std::string& a : bad.args) command += " '" + a + "'";
    SCOPED_TRACE(command);
    const symm::test::ProgramOutcome out = symm::test::run_program(bad.program, bad.args, bad.env);
    EXPECT_EQ(out.term_signal, 0) << out.output;
    EXPECT_EQ(out.exit_code, 2) << out.output;
    const std::size_t named = out.output.find(bad.expected);
    EXPECT_NE(named, std::string::npos) << "expected '" << bad.expected << "' in: " << out.output;
    // The refusal needs no GPU: nothing may have looked for one first.
    EXPECT_EQ(out.output.find("no GPU visible"), std::string::npos) << out.output;
    EXPECT_LT(out.output.size(), 1500u) << "a refusal is a line or two: " << out.output;
  }
}

TEST(RefusedCommandLine, ExamplesRefuseEachWithTheFlagNamed) {
  const std::string load = SYMM_PROGRAM_00_LOAD, store = SYMM_PROGRAM_01_STORE,
                    all_load = SYMM_PROGRAM_02_ALL_LOAD, all_store = SYMM_PROGRAM_03_ALL_STORE,
                    add = SYMM_PROGRAM_04_ATOMIC_ADD, xchg = SYMM_PROGRAM_05_ATOMIC_XCHG,
                    message = SYMM_PROGRAM_06_MESSAGE_PASSING;
  expect_refused_before_gpu_work({
      {load, {"--n_repeat", "0"}, "--n_repeat must be >= 1 (got 0)"},
      {load, {"--n_warmup", "-1"}, "--n_warmup must be >= 0 (got -1)"},
      {load, {"--threads", "16"}, "--threads must be between 32 and 1024 (got 16)"},
      {load, {"--threads", "2048"}, "--threads must be between 32 and 1024 (got 2048)"},
      {load, {"--blocks", "-2"}, "--blocks must be >= 0 (got -2)"},
      {load, {"-o", kMissingDir}, "-o/--output_file /nonexistent-symm-test-dir"},
      {load, {"-o", "/tmp"}, "-o/--output_file /tmp is a directory"},
      {store, {"--min_bytes", "12"}, "--min_bytes"},
      {store, {"--min_bytes", "1MiB", "--max_bytes", "4KiB"}, "--min_bytes"},
      {store, {"--max_bytes", "7GiBx"}, "--max_bytes"},
      {store, {"-r", "1"}, "-r 1: this example needs at least 2 ranks"},
      {all_load, {"--n_repeat", "abc"}, "--n_repeat"},
      {all_load, {"--heap_size", "-5"}, "--heap_size"},
      {all_load, {"--rank_timeout", "soon"}, "--rank_timeout"},
      {all_store, {"-r", "1"}, "-r 1: this example needs at least 2 ranks"},
      {all_store, {"-r", "0"}, "-r must be between 1 and 1024 (got 0)"},
      {all_store, {"-r", "5000"}, "-r must be between 1 and 1024 (got 5000)"},
      {all_store, {"--bogus"}, "--bogus"},
      {add, {"--iterations", "0"}, "--iterations must be >= 1 (got 0)"},
      {add, {"-i", "-4"}, "--iterations must be >= 1 (got -4)"},
      {add, {"--min_bytes", "64"}, "--min_bytes"},  // no transfer sizes in this example
      {xchg, {"--iterations", "0"}, "--iterations must be >= 1 (got 0)"},
      {xchg, {"--n_repeat", "-1"}, "--n_repeat must be >= 1 (got -1)"},
      {xchg, {"--threads", "0"}, "--threads must be between 32 and 1024 (got 0)"},
      {message, {"--iterations", "0"}, "--iterations must be >= 1 (got 0)"},
      {message, {"-r", "1"}, "-r 1: this example needs at least 2 ranks"},
      {message, {"--n_warmup", "x"}, "--n_warmup"},
      {message, {"-o", kMissingDir}, "-o/--output_file /nonexistent-symm-test-dir"},
  });
}

TEST(RefusedCommandLine, SymmBenchRefusesEachWithTheFlagNamed) {
  const std::string bench = SYMM_PROGRAM_SYMM_BENCH;
  const std::string preset = std::string(SYMM_SOURCE_DIR) + "/bench/gemm/quick.json";
  const auto gemm = [](std::vector<std::string> args) {
    args.insert(args.begin(), "gemm");
    return args;
  };
  expect_refused_before_gpu_work({
      {bench, {}, "subcommand"},
      {bench, gemm({}), "--preset FILE"},
      {bench, gemm({"--mnk", "64", "64", "64", "--repeats", "0"}), "--repeats must be >= 1 (got 0)"},
      {bench, gemm({"--mnk", "64", "64", "64", "--warmup", "-1"}), "--warmup must be >= 0 (got -1)"},
      {bench, gemm({"--mnk", "64", "64", "64", "--iters", "0"}), "--iters must be >= 1 (got 0)"},
      {bench, gemm({"--mnk", "64", "64", "64", "--fewer-sms", "0"}), "--fewer-sms must be >= 1 (got 0)"},
      {bench, gemm({"--mnk", "0", "64", "64"}), "--mnk M must be >= 1 (got 0)"},
      {bench, gemm({"--mnk", "64", "-1", "64"}), "--mnk N must be >= 1 (got -1)"},
      {bench, gemm({"--mnk", "64", "64"}), "--mnk"},
      {bench, gemm({"--mnk", "64", "64", "64", "--output", kMissingDir}), "--output /nonexistent-symm-test-dir"},
      {bench, gemm({"--mnk", "64", "64", "64", "--config", "999x1x1s1"}), "--config 999x1x1s1"},
      {bench, gemm({"--mnk", "64", "64", "64", "--dtype", "fp8"}), "--dtype"},
      {bench, gemm({"--preset", "/nonexistent-symm-test-dir/p.json"}), "/nonexistent-symm-test-dir/p.json"},
      {bench, gemm({"--preset", preset, "--mnk", "64", "64", "64"}), "--preset FILE or --mnk M N K, not both"},
      {bench, gemm({"--mnk", "64", "64", "64"}), "SYMM_GEMM_CONFIG", {"SYMM_GEMM_CONFIG=zzz"}},
  });
}

TEST(RefusedCommandLine, GemmAllScatterRefusesEachWithTheFlagNamed) {
  const std::string program = SYMM_PROGRAM_10_GEMM_ALL_SCATTER;
  expect_refused_before_gpu_work({
      {program, {"-m", "0"}, "-m must be between 1 and 2147483647 (got 0)"},
      {program, {"--n_repeat", "0"}, "--n_repeat must be >= 1 (got 0)"},
      {program, {"--BLK_M", "64"}, "--BLK_M 64"},
      {program, {"--variant", "nope"}, "--variant nope"},
      {program, {"-o", kMissingDir}, "-o/--output_file /nonexistent-symm-test-dir"},
      {program, {"--datatype", "fp8"}, "--datatype"},
      {program, {"-r", "2", "-n", "4600"}, "-n 4600"},
      {program, {"-r", "2", "--loopback_peers", "1"}, "--loopback_peers"},
      {program, {"--preset", "/nonexistent-symm-test-dir/p.json"}, "--preset /nonexistent-symm-test-dir/p.json"},
  });
}

}  // namespace
