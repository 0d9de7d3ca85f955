// Bad input to the real programs (examples 00-06, symm-bench, the GEMM + all-scatter
// programs 07, 10, 11, 12): command lines, preset files and SYMM_* variables. Each must
// be refused with exit code 2, never a signal, with a message naming the flag, file key or
// variable, decided before any GPU work (this runs on machines without one).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
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
    // No GPU visible, on GPU machines too: a program that looked for one before refusing
    // its input says "no GPU visible" wherever the test runs.
    std::vector<std::string> env{"CUDA_VISIBLE_DEVICES="};
    env.insert(env.end(), bad.env.begin(), bad.env.end());
    const symm::test::ProgramOutcome out = symm::test::run_program(bad.program, bad.args, env);
    EXPECT_EQ(out.term_signal, 0) << out.output;
    EXPECT_EQ(out.exit_code, 2) << out.output;
    const std::size_t named = out.output.find(bad.expected);
    EXPECT_NE(named, std::string::npos) << "expected '" << bad.expected << "' in: " << out.output;
    EXPECT_EQ(out.output.rfind(bad.expected), named) << "said more than once: " << out.output;
    // The refusal needs no GPU: nothing may have looked for one first.
    EXPECT_EQ(out.output.find("no GPU visible"), std::string::npos) << out.output;
    EXPECT_LT(out.output.size(), 1500u) << "a refusal is a line or two: " << out.output;
  }
}

// A preset file with `text` in the test's scratch directory; returns its path.
std::string preset_file(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::path(testing::TempDir()) / name;
  std::ofstream(path) << text;
  return path.string();
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
      {load, {"--n_repeats", "3"}, "did you mean --n_repeat?"},
      {xchg, {"--num-ranks", "2"}, "did you mean --num_ranks?"},
      {message, {"--warmup", "3"}, "did you mean --n_warmup?"},
      {add, {"--heap_size", "0.5"}, "--heap_size"},
      {message, {"--rank_timeout", "-3"}, "--rank_timeout"},
      {all_store, {"--max_bytes", "0"}, "--max_bytes"},
  });
}

// Every SYMM_* variable, bad, through the programs that read it: refused by the settings
// layer before any rank, NVML or CUDA call, the variable and the value named.
TEST(RefusedSetting, ExamplesRefuseEachBadVariableBeforeAnyRank) {
  const std::string load = SYMM_PROGRAM_00_LOAD, store = SYMM_PROGRAM_01_STORE,
                    all_load = SYMM_PROGRAM_02_ALL_LOAD, all_store = SYMM_PROGRAM_03_ALL_STORE,
                    add = SYMM_PROGRAM_04_ATOMIC_ADD, xchg = SYMM_PROGRAM_05_ATOMIC_XCHG,
                    message = SYMM_PROGRAM_06_MESSAGE_PASSING;
  expect_refused_before_gpu_work({
      {load, {}, "SYMM_LOG_LEVEL='verbose' is not valid", {"SYMM_LOG_LEVEL=verbose"}},
      {store, {}, "SYMM_RANK_TIMEOUT_S='ten' is not valid", {"SYMM_RANK_TIMEOUT_S=ten"}},
      {message, {}, "SYMM_RANK_TIMEOUT_S='604801' is not valid", {"SYMM_RANK_TIMEOUT_S=604801"}},
      {all_load, {}, "SYMM_BOOTSTRAP_TIMEOUT_MS='0' is not valid", {"SYMM_BOOTSTRAP_TIMEOUT_MS=0"}},
      {all_store, {}, "SYMM_HEAP_SIZE='lots' is not valid", {"SYMM_HEAP_SIZE=lots"}},
      {add, {}, "SYMM_HEAP_SIZE='0' is not valid", {"SYMM_HEAP_SIZE=0"}},
      {xchg, {}, "SYMM_HEAP_TRANSPORT='nvlink' is not valid", {"SYMM_HEAP_TRANSPORT=nvlink"}},
      {message, {}, "SYMM_HEAP_CHECK_EVERY='-1' is not valid", {"SYMM_HEAP_CHECK_EVERY=-1"}},
      {load, {}, "SYMM_WAIT_TIMEOUT_MS='0' is not valid", {"SYMM_WAIT_TIMEOUT_MS=0"}},
      {store, {}, "SYMM_WAIT_TIMEOUT_MS='86400001' is not valid", {"SYMM_WAIT_TIMEOUT_MS=86400001"}},
      {all_load, {}, "SYMM_LOCAL_RANK='abc' is not valid", {"SYMM_LOCAL_RANK=abc"}},
  });
}

TEST(RefusedSetting, SymmBenchAndTheGemmProgramsRefuseEachBadVariable) {
  const std::string bench = SYMM_PROGRAM_SYMM_BENCH, p07 = SYMM_PROGRAM_07_GEMM_ALL_SCATTER,
                    p10 = SYMM_PROGRAM_10_GEMM_ALL_SCATTER, p11 = SYMM_PROGRAM_11_GEMM_ALL_SCATTER,
                    p12 = SYMM_PROGRAM_12_GEMM_ALL_SCATTER;
  const std::vector<std::string> mnk = {"gemm", "--mnk", "64", "64", "64"};
  expect_refused_before_gpu_work({
      {bench, mnk, "SYMM_WAIT_TIMEOUT_MS='x' is not valid", {"SYMM_WAIT_TIMEOUT_MS=x"}},
      {bench, mnk, "SYMM_HEAP_TRANSPORT='shm' is not valid", {"SYMM_HEAP_TRANSPORT=shm"}},
      {bench, mnk, "SYMM_LOG_LEVEL='7' is not valid", {"SYMM_LOG_LEVEL=7"}},
      {bench, mnk, "SYMM_GEMM_SMS", {"SYMM_GEMM_SMS=many"}},
      {bench, mnk, "SYMM_GEMM_SMS", {"SYMM_GEMM_SMS=-2"}},
      {bench, mnk, "SYMM_GEMM_GSIZE_M", {"SYMM_GEMM_GSIZE_M=0"}},
      {bench, mnk, "SYMM_GEMM_SPLITS", {"SYMM_GEMM_SPLITS=-3"}},
      {bench, mnk, "SYMM_GEMM_OPERAND_COPIES=2 is not valid", {"SYMM_GEMM_OPERAND_COPIES=2"}},
      {bench, mnk, "clusters (SYMM_GEMM_CLUSTERS) is 5", {"SYMM_GEMM_CLUSTERS=5"}},
      {p10, {}, "SYMM_GEMM_CONFIG", {"SYMM_GEMM_CONFIG=zzz"}},
      {p10, {}, "SYMM_GEMM_STREAM_K", {"SYMM_GEMM_STREAM_K=7"}},
      {p10, {}, "SYMM_RANK_TIMEOUT_S='-1' is not valid", {"SYMM_RANK_TIMEOUT_S=-1"}},
      {p10, {}, "SYMM_LOG_LEVEL='loud' is not valid", {"SYMM_LOG_LEVEL=loud"}},
      {p10, {}, "SYMM_HEAP_SIZE='12 parsecs' is not valid", {"SYMM_HEAP_SIZE=12 parsecs"}},
      {p07, {}, "SYMM_BOOTSTRAP_TIMEOUT_MS='1.5' is not valid", {"SYMM_BOOTSTRAP_TIMEOUT_MS=1.5"}},
      {p11, {}, "SYMM_GEMM_FORCE_FALLBACK", {"SYMM_GEMM_FORCE_FALLBACK=yes"}},
      {p12, {}, "SYMM_GEMM_VERBOSE", {"SYMM_GEMM_VERBOSE=on"}},
      {p12, {"--preset", std::string(SYMM_SOURCE_DIR) + "/bench/presets/short.json"},
       "SYMM_WAIT_TIMEOUT_MS='-5' is not valid", {"SYMM_WAIT_TIMEOUT_MS=-5"}},
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
      {bench, gemm({"--mnk", "64", "64", "64", "--warmup", "-1"}), "--n_warmup must be >= 0 (got -1)"},
      {bench, gemm({"--mnk", "64", "64", "64", "--iters", "0"}), "--n_repeat must be >= 1 (got 0)"},
      {bench, gemm({"--mnk", "64", "64", "64", "--fewer-sms", "0"}), "--fewer_sms must be >= 1 (got 0)"},
      {bench, gemm({"--mnk", "0", "64", "64"}), "--mnk M must be between 1 and 2147483647 (got 0)"},
      {bench, gemm({"--mnk", "64", "-1", "64"}), "--mnk N must be between 1 and 2147483647 (got -1)"},
      {bench, gemm({"--mnk", "64", "64", "3000000000"}), "--mnk K must be between 1 and 2147483647 (got 3000000000)"},
      {bench, gemm({"--mnk", "64", "64"}), "--mnk"},
      {bench, gemm({"--mnk", "64", "64", "64", "--output", kMissingDir}), "-o/--output_file /nonexistent-symm-test-dir"},
      {bench, gemm({"--mnk", "64", "64", "64", "--config", "999x1x1s1"}), "--config 999x1x1s1"},
      {bench, gemm({"--mnk", "64", "64", "64", "--dtype", "fp8"}), "--datatype"},
      {bench, gemm({"--preset", "/nonexistent-symm-test-dir/p.json"}), "/nonexistent-symm-test-dir/p.json"},
      {bench, gemm({"--preset", preset, "--mnk", "64", "64", "64"}), "--preset FILE or --mnk M N K, not both"},
      {bench, gemm({"--mnk", "64", "64", "64"}), "SYMM_GEMM_CONFIG", {"SYMM_GEMM_CONFIG=zzz"}},
      {bench, gemm({"--mnk", "64", "64", "64", "--n_repeat", "0"}), "--n_repeat must be >= 1 (got 0)"},
      {bench, gemm({"--mnk", "64", "64", "64", "-o", kMissingDir}), "-o/--output_file /nonexistent-symm-test-dir"},
      {bench, gemm({"--mnk", "64", "64", "64", "--n-repeat", "3"}), "did you mean --n_repeat?"},
      {bench, gemm({"--mnk", "64", "64", "64", "--b_layout", "mn"}), "--b_layout"},
      {bench, gemm({"extra", "--mnk", "64", "64", "64"}), "extra"},
      {bench, gemm({"--mnk", "64", "64", "64", "--plans", "-o", "plans.json"}), "--plans prints plans"},
  });
}

// The preset mistakes of issue 11, each through the real symm-bench: two used to crash
// (worlds [0]: SIGFPE, shape [[]]: SIGSEGV), one read past its array, one was answered
// with "give --preset or --mnk".
TEST(RefusedCommandLine, SymmBenchRefusesEachBadPresetNamingFileAndKey) {
  const std::string bench = SYMM_PROGRAM_SYMM_BENCH;
  const auto with_preset = [](const std::string& name, const std::string& text) {
    return std::vector<std::string>{"gemm", "--preset", preset_file(name, text)};
  };
  expect_refused_before_gpu_work({
      {bench, with_preset("worlds0.json", R"({"sharded": {"worlds": [0], "shapes": [[8, 8, 8]]}})"),
       "sharded.worlds[0]"},
      {bench, with_preset("empty_shape.json", R"({"square": [[]]})"), "square[0]"},
      {bench, with_preset("two_numbers.json", R"({"square": [[8192, 8192]]})"), "square[0]"},
      {bench, with_preset("misspelt.json", R"({"squares": [[8, 8, 8]]})"), "unknown key 'squares'"},
      {bench, with_preset("not_json.json", R"({"square": [[8, 8, 8]],)"), "not_json.json"},
      {bench, with_preset("fewer_sms.json", R"({"square": [[8, 8, 8]], "fewer_sms": [0]})"), "fewer_sms[0]"},
  });
}

TEST(RefusedCommandLine, GemmAllScatterRefusesEachWithTheFlagNamed) {
  const std::string program = SYMM_PROGRAM_10_GEMM_ALL_SCATTER, p07 = SYMM_PROGRAM_07_GEMM_ALL_SCATTER,
                    p11 = SYMM_PROGRAM_11_GEMM_ALL_SCATTER, p12 = SYMM_PROGRAM_12_GEMM_ALL_SCATTER;
  const std::string short_preset = std::string(SYMM_SOURCE_DIR) + "/bench/presets/short.json";
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
      {program, {"--num_stages", "1"}, "--num_stages 1"},
      {program, {"--heap_size", "1XB"}, "--heap_size"},
      {program, {"-r", "2", "--heap_size", "1MiB"}, "--heap_size / SYMM_HEAP_SIZE = 1 MiB cannot hold the matrices"},
      {p11, {"-r", "2", "-m", "4096", "-n", "4096", "-k", "4096"}, "give at least 368 MiB", {"SYMM_HEAP_SIZE=64MiB"}},
      {program, {"--preset", short_preset, "-m", "4096"}, "drop -m (the preset's \"sizes\" sets it)"},
      {program, {"--preset", short_preset, "--split_tail", "0"}, "drop --split_tail (no preset key sets it"},
      {program, {"--preset", short_preset, "-r", "3"}, "-r 3"},
      {program, {"--config", "128x256x64s5"}, "--config 128x256x64s5: no such configuration is built; built of that size: 128x256x64s4"},
      {program, {"--config", "128x256x64s4", "--BLK_M", "128"}, "--config 128x256x64s4 and --BLK_M 128 both name the tile"},
      {program, {"-r", "2", "--config", "152x256x64s4c2-swapped"}, "152x256x64s4c2-swapped is not built for wg_specialization"},
      {program, {"--preset", short_preset, "--config", "128x256x64s4"}, "drop --config (the preset's \"configs\" sets it)"},
      {program, {"--preset", preset_file("sweep_key.json", R"({"sizes": [[64, 64, 64]], "rank": [1]})")},
       "\"rank\" is not a preset key"},
      {p07, {"--n_repeat", "0"}, "--n_repeat must be >= 1 (got 0)"},
      {p07, {"--n_repeats", "5"}, "did you mean --n_repeat?"},
      {p07, {"-r", "2", "--split_tail", "1"}, "fused_sequential computes whole tiles, so split_tail=1"},
      {program, {"--split_tail", "2"}, "--split_tail must be between -1 and 1 (got 2)"},
      {p11, {"--comm_sms", "-1"}, "--comm_sms must be >= 0 (got -1)"},
      {p11, {"-k", "0"}, "-k must be between 1 and 2147483647 (got 0)"},
      {p12, {"--gsize_m", "0"}, "--gsize_m must be >= 1 (got 0)"},
      {p12, {"--variant", "tma_push,bogus"}, "--variant tma_push,bogus"},
  });
}

// A directory given as the preset used to abort the program (an uncaught
// std::ios_base::failure from its first read, exit code 134).
TEST(RefusedCommandLine, GemmAllScatterRefusesAPresetThatIsNoFile) {
  const std::string program = SYMM_PROGRAM_10_GEMM_ALL_SCATTER;
  expect_refused_before_gpu_work({
      {program, {"--preset", "/tmp"}, "--preset /tmp is a directory"},
      {program, {"--preset", "/dev/null"}, "--preset /dev/null is not a regular file"},
  });
}

// A sweep file (first line symm.sweep/1) as -o of a single run or of symm-bench: the
// results, written whole at the end, would replace the sweep. Refused before any GPU work.
TEST(RefusedCommandLine, AResultsFileNeverReplacesASweepFile) {
  const std::string program = SYMM_PROGRAM_10_GEMM_ALL_SCATTER, bench = SYMM_PROGRAM_SYMM_BENCH;
  const std::string header = R"({"preset": {"sizes": [[64, 64, 64]], "ranks": [1]}, "schema": "symm.sweep/1"})";
  const std::string sweep = preset_file("kept_sweep.jsonl", header + "\n");
  expect_refused_before_gpu_work({
      {program, {"-r", "2", "-o", sweep}, "-o/--output_file " + sweep + " is a sweep file (symm.sweep/1)"},
      {SYMM_PROGRAM_07_GEMM_ALL_SCATTER, {"-o", sweep},
       "resume the sweep with its program's --preset, or give another -o/--output_file"},
      {bench, {"gemm", "--mnk", "64", "64", "64", "-o", sweep}, "-o/--output_file " + sweep + " is a sweep file"},
  });
  std::ifstream in(sweep);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), header + "\n");
}

// The sweep file of another preset, or an -o that is not a sweep file, is bad input (exit
// code 2, before anything is written), not a failed run.
TEST(RefusedCommandLine, GemmAllScatterRefusesAnotherPresetsSweepOrAFileThatIsNone) {
  const std::string program = SYMM_PROGRAM_10_GEMM_ALL_SCATTER;
  const std::string short_preset = std::string(SYMM_SOURCE_DIR) + "/bench/presets/short.json";
  const std::string other = preset_file(
      "other_sweep.jsonl", R"({"preset": {"sizes": [[64, 64, 64]], "ranks": [1]}, "preset_file": "mine.json", )"
                           R"("schema": "symm.sweep/1"})" "\n");
  const std::string results = preset_file("results.json", R"({"schema": "symm.results/1", "rows": []})" "\n");
  expect_refused_before_gpu_work({
      {program, {"--preset", short_preset, "-o", other}, "holds a sweep of another preset (mine.json)"},
      {program, {"--preset", short_preset, "-o", results}, "has no sweep header"},
  });
}

// Repeated --fewer_sms values were each timed, one JSON entry replacing the other.
TEST(RefusedCommandLine, SymmBenchRefusesRepeatedFewerSms) {
  expect_refused_before_gpu_work({
      {SYMM_PROGRAM_SYMM_BENCH, {"gemm", "--mnk", "64", "64", "64", "--fewer_sms", "16", "32", "16"},
       "--fewer_sms 16 is given twice"},
  });
}

// With SYMM_GEMM_FORCE_FALLBACK=1, --config names one of the fallback's configurations:
// those are accepted (the run then stops only for want of a GPU), a WGMMA one is refused.
TEST(RefusedCommandLine, SymmBenchChecksConfigAgainstTheForcedFallback) {
  const std::string bench = SYMM_PROGRAM_SYMM_BENCH;
  const std::vector<std::string> forced = {"SYMM_GEMM_FORCE_FALLBACK=1"};
  const auto with_config = [](const std::string& config, const std::string& layout) {
    return std::vector<std::string>{"gemm", "--mnk", "64", "64", "64", "--config", config, "--b_layout", layout};
  };
  expect_refused_before_gpu_work({
      {bench, with_config("128x256x64s4", "nk"), "--config 128x256x64s4: SYMM_GEMM_FORCE_FALLBACK=1 runs", forced},
      {bench, with_config("128x96x64s3", "kn"), "128x96x64s3 reads B as N x K only", forced},
  });
  for (const auto& [config, layout] : {std::pair{"128x96x64s3", "nk"}, std::pair{"128x128x64s3", "kn"}}) {
    SCOPED_TRACE(config);
    const symm::test::ProgramOutcome out =
        symm::test::run_program(bench, with_config(config, layout), {forced[0], "CUDA_VISIBLE_DEVICES="});
    EXPECT_EQ(out.exit_code, 1) << out.output;
    EXPECT_NE(out.output.find("no GPU visible"), std::string::npos) << out.output;
    EXPECT_EQ(out.output.find("--config"), std::string::npos) << out.output;
  }
}

}  // namespace
