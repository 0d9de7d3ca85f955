// The command line of the GEMM + all-scatter programs: what is accepted, and that every
// refusal is one short line and exit code 2, before any rank starts (no GPU needed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "command_line.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

const Program kProgram{"10_test", "test", ops::ScatterVariant::wg_specialization};

struct Parsed {
  int code = 0;
  CommandLine cl;
  std::string stderr_text;
};

Parsed parse_args(std::vector<std::string> args) {
  // No results file unless the test names one: nothing is written in the test's folder.
  if (std::find(args.begin(), args.end(), "-o") == args.end()) args.insert(args.end(), {"-o", ""});
  args.insert(args.begin(), "10_test");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  Parsed p;
  testing::internal::CaptureStderr();
  p.code = parse(static_cast<int>(argv.size()), argv.data(), kProgram, p.cl);
  p.stderr_text = testing::internal::GetCapturedStderr();
  return p;
}

// Refused with exit code 2 and one line that names `flag`.
void expect_refused(const std::vector<std::string>& args, const std::string& flag) {
  const Parsed p = parse_args(args);
  EXPECT_EQ(p.code, 2) << args.front();
  EXPECT_NE(p.stderr_text.find(flag), std::string::npos) << p.stderr_text;
  EXPECT_LT(p.stderr_text.size(), 600u) << "a refusal is one short line: " << p.stderr_text;
}

TEST(GemmAllScatterCli, DefaultsAreIrissAndTheProgramsVariant) {
  const Parsed p = parse_args({});
  ASSERT_EQ(p.code, -1) << p.stderr_text;
  EXPECT_EQ(p.cl.shape.m, 8192);
  EXPECT_EQ(p.cl.shape.n, 4608);
  EXPECT_EQ(p.cl.shape.k, 36864);
  EXPECT_EQ(p.cl.shape.dtype, gemm::DType::bf16);
  EXPECT_EQ(p.cl.op.gsize_m, 8);
  EXPECT_TRUE(p.cl.validate && p.cl.benchmark);  // neither -v nor -b: both
  EXPECT_TRUE(p.cl.baselines);
  EXPECT_FALSE(p.cl.op.config.has_value());
  ASSERT_EQ(p.cl.variants.size(), 1u);
  EXPECT_EQ(p.cl.variants[0], ops::ScatterVariant::wg_specialization);
}

TEST(GemmAllScatterCli, VariantListsExpandAndDropDuplicates) {
  const Parsed p = parse_args({"--variant", "all,auto,tma_push", "--no_baselines"});
  ASSERT_EQ(p.code, -1) << p.stderr_text;
  EXPECT_EQ(p.cl.variants.size(), std::size(ops::kScatterVariants) + 1);
  EXPECT_EQ(p.cl.variants.back(), std::nullopt);  // auto
  EXPECT_FALSE(p.cl.baselines);
  expect_refused({"--variant", "wg_specialisation"}, "--variant");
  expect_refused({"--variant", "tma_push,"}, "--variant");
}

TEST(GemmAllScatterCli, TileFlagsNameOneBuiltConfiguration) {
  const Parsed p = parse_args({"--BLK_M", "256", "--BLK_N", "64", "--num_stages", "2"});
  ASSERT_EQ(p.code, -1) << p.stderr_text;
  ASSERT_TRUE(p.cl.op.config.has_value());
  EXPECT_EQ(*p.cl.op.config, (gemm::KernelConfig{256, 64, 64, 2}));
  expect_refused({"--BLK_M", "64"}, "--BLK_M 64");                  // not built
  expect_refused({"--BLK_M", "128", "--BLK_N", "128"}, "--num_stages");  // ambiguous
  // Built also as a 2-block cluster and as ping-pong: the flags name the cooperative tile.
  for (const char* n : {"256", "192"}) {
    const Parsed q = parse_args({"--BLK_M", "128", "--BLK_N", n, "--BLK_K", "64", "--num_stages", "4"});
    ASSERT_EQ(q.code, -1) << q.stderr_text;
    EXPECT_EQ(*q.cl.op.config, (gemm::KernelConfig{128, std::atoi(n), 64, 4}));
  }
}

// --config names any built configuration, those the tile flags cannot name too (tma_push
// runs them); the plan refuses what a variant does not run (bad_command_line_test.cc).
TEST(GemmAllScatterCli, ConfigNamesAnyBuiltConfiguration) {
  for (const gemm::KernelConfig& c : gemm::kWgmmaConfigs) {
    const Parsed p = parse_args({"--config", gemm::to_string(c), "--variant", "tma_push"});
    ASSERT_EQ(p.code, -1) << gemm::to_string(c) << ": " << p.stderr_text;
    ASSERT_TRUE(p.cl.op.config.has_value());
    EXPECT_EQ(*p.cl.op.config, c);
  }
  expect_refused({"--config", "nonsense"}, "--config nonsense: no such configuration is built; --help lists");
  expect_refused({"--config", "128x256x64s4", "--num_stages", "4"}, "both name the tile");
}

TEST(GemmAllScatterCli, NumbersOutOfRangeNameTheFlagWithoutHugeBounds) {
  expect_refused({"-m", "0"}, "-m must be between 1 and 2147483647 (got 0)");
  expect_refused({"-k", "99999999999"}, "-k must be between 1 and 2147483647 (got 99999999999)");
  expect_refused({"--gsize_m", "0"}, "--gsize_m must be >= 1 (got 0)");
  expect_refused({"--n_repeat", "0"}, "--n_repeat must be >= 1 (got 0)");
  expect_refused({"--gemm_sms", "-1"}, "--gemm_sms must be >= 0 (got -1)");
}

TEST(GemmAllScatterCli, WorldChecksRunBeforeTheLaunchWhenRanksAreGiven) {
  expect_refused({"-r", "2", "-n", "4600"}, "-n 4600");  // shard of 2300 columns
  expect_refused({"-r", "3", "-n", "4000"}, "-n 4000");  // not divisible by 3
  expect_refused({"-r", "2", "--loopback_peers", "1"}, "--loopback_peers");
  expect_refused({"-r", "2", "--gemm_sms", "132"}, "gemm_sms");  // no copy blocks left
  EXPECT_EQ(parse_args({"-r", "3"}).code, -1);                   // 4608 / 3 = 1536 columns
  EXPECT_EQ(parse_args({"-r", "1", "--loopback_peers", "1"}).code, -1);
}

TEST(GemmAllScatterCli, AnUnwritableResultsFileIsRefusedFirst) {
  expect_refused({"-o", "/nonexistent-dir/results.json"}, "/nonexistent-dir");
}

TEST(GemmAllScatterCli, HeapHoldsTheOperandsAndOneContendersCopies) {
  CommandLine cl;
  const std::uint64_t c = 8192ull * 4608 * 2;
  const std::uint64_t operands = 8192ull * 36864 * 2 + 36864ull * 2304 * 2 + c;
  EXPECT_GE(heap_bytes_needed(cl, 2), operands + c);  // C plus the baselines' tuning C
  cl.op.loopback_peers = 3;
  EXPECT_GE(heap_bytes_needed(cl, 1), operands + 3 * c);
}

// What a run holds outside the heap counts too: the fp32 reference when validating, the
// baselines' gathered C; a run that does not fit is refused with both figures.
TEST(GemmAllScatterCli, DeviceMemoryCountsWhatLivesOutsideTheHeap) {
  CommandLine cl;  // 8192 x 36864 x 4608 bf16 with the baselines
  cl.baselines = false;
  const std::uint64_t bare = device_bytes_needed(cl, 2);
  EXPECT_EQ(bare, heap_bytes_needed(cl, 2) + kDeviceReserveBytes);
  cl.validate = true;
  const std::uint64_t reference = 8192ull * 4608 * 4 + 36864ull * 2304 * 2;  // fp32 C, a B shard
  EXPECT_EQ(device_bytes_needed(cl, 2), bare + reference);
  cl.baselines = true;
  const std::uint64_t baselines = 8192ull * 4608 * 2 + 8192ull * 2304 * (4 + 2);  // gathered C, check
  EXPECT_EQ(device_bytes_needed(cl, 2), bare + reference + baselines);

  EXPECT_EQ(memory_problem(cl, 2, device_bytes_needed(cl, 2)), "");
  const std::string why = memory_problem(cl, 2, device_bytes_needed(cl, 2) - 1);
  EXPECT_NE(why.find("needs about"), std::string::npos) << why;
  EXPECT_NE(why.find("as a smaller shape"), std::string::npos) << why;
  // A heap the user gave is what each rank maps, whatever the run needs.
  CommandLine given = cl;
  given.heap_size = std::uint64_t{100} << 30;
  EXPECT_EQ(device_bytes_needed(given, 2) - device_bytes_needed(cl, 2),
            given.heap_size - heap_bytes_needed(cl, 2));
  const std::string heap_why = memory_problem(given, 2, device_bytes_needed(cl, 2));
  EXPECT_NE(heap_why.find("as --heap_size / SYMM_HEAP_SIZE gave"), std::string::npos) << heap_why;
  EXPECT_NE(heap_why.find("give a smaller heap"), std::string::npos) << heap_why;
  cl.shape.m = cl.shape.n = cl.shape.k = 1 << 30;  // more bytes than 64 bits hold: saturated, refused
  EXPECT_EQ(device_bytes_needed(cl, 2), std::numeric_limits<std::uint64_t>::max());
  EXPECT_NE(memory_problem(cl, 2, std::uint64_t{141} << 30), "");
}

}  // namespace
}  // namespace symm::examples::gemm_all_scatter
