// Sweeps without a GPU: presets, the skip rules and --preset on the command line (the
// sweep file, resuming it and the progress line: gemm_all_scatter_sweep_file_test.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "sweep_preset.hpp"
#include "sweep_rules.hpp"
#include "symm/common/error.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

using nlohmann::json;

const std::string kPresets = SYMM_SOURCE_DIR "/bench/presets/";

std::string error_of(const json& preset) {
  try {
    parse_preset(preset, "test");
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

json minimal_preset() { return {{"sizes", {{8192, 4608, 36864}}}, {"ranks", {2}}}; }

TEST(SweepPreset, IrissGridExpandsToEveryWorldSizeAndDtype) {
  const SweepPreset p = load_preset(kPresets + "default.json");
  EXPECT_EQ(p.problems.size(), 10u);  // 5 sizes x fp16, bf16
  EXPECT_EQ(p.configs.size(), 6u);    // 3 tiles x 2 stage counts
  EXPECT_EQ(p.configs.front(), (gemm::KernelConfig{128, 128, 64, 2}));
  EXPECT_EQ(p.variants.size(), std::size(ops::kScatterVariants));
  const std::vector<SweepPoint> points = expand(p);
  ASSERT_EQ(points.size(), 40u);  // x ranks 1, 2, 4, 8
  EXPECT_EQ(points.front().key, "1r 4096x4608x36864 fp16");
  EXPECT_EQ(points.back().world, 8);
}

TEST(SweepPreset, ShortPresetLetsThePlanChooseTheTile) {
  const SweepPreset p = load_preset(kPresets + "short.json");
  ASSERT_EQ(p.configs.size(), 1u);
  EXPECT_FALSE(p.configs.front().has_value());
  EXPECT_EQ(p.ranks, (std::vector<int>{1, 2}));
}

// "configs" names any built configuration (ping-pong, swapped, clustered), which "tiles"
// (Iris's cooperative tile flags) cannot; a variant not built for one is skipped there.
TEST(SweepPreset, ConfigsByNameReachEveryBuiltConfiguration) {
  json preset = minimal_preset();
  preset["configs"] = {"152x256x64s4c2-swapped", "128x256x64s4"};
  const SweepPreset p = parse_preset(preset, "test");
  ASSERT_EQ(p.configs.size(), 2u);
  EXPECT_EQ(gemm::to_string(*p.configs[0]), "152x256x64s4c2-swapped");
  EXPECT_EQ(p.configs[1], (gemm::KernelConfig{128, 256, 64, 4}));

  CommandLine cl;
  cl.shape = p.problems.front();
  cl.variants = p.variants;  // every variant
  const PointPlan plan = plan_point(cl, p.configs, 2, 132, gemm::kSm90MaxSmemPerBlock);
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.groups[0].variants.size(), 2u) << "tma_push and bulk_synchronous run swapped tiles";
  EXPECT_EQ(plan.groups[1].variants.size(), std::size(ops::kScatterVariants));
  int skipped_swapped = 0;
  for (const Row& row : plan.skipped) {
    EXPECT_EQ(row.config, p.configs[0]) << row.name;
    skipped_swapped += row.skipped.find("not built for") != std::string::npos;
  }
  EXPECT_EQ(skipped_swapped, 3) << "wg_specialization, fused_sequential, producer_consumer";

  preset["configs"] = {"128x256x64s5"};
  EXPECT_NE(error_of(preset).find("\"configs\" 128x256x64s5: no such configuration is built; built of that size: "
                                  "128x256x64s4"),
            std::string::npos)
      << error_of(preset);
  preset["configs"] = {64};
  EXPECT_NE(error_of(preset).find("\"configs\" holds 64; give configuration names"), std::string::npos);
  preset["configs"] = json::array();
  EXPECT_NE(error_of(preset).find("non-empty list"), std::string::npos);
  preset["configs"] = {"128x256x64s4"};
  preset["tiles"] = {{128, 256, 64}};
  preset["num_stages"] = {4};
  EXPECT_NE(error_of(preset).find("both name the configurations"), std::string::npos);
  preset.erase("tiles");
  EXPECT_NE(error_of(preset).find("\"num_stages\" belongs to \"tiles\""), std::string::npos);
}

TEST(SweepPreset, MistakesAreRefusedNamingTheKey) {
  json p = minimal_preset();
  EXPECT_EQ(error_of(p), "accepted");
  p["tile"] = {{128, 128, 64}};
  EXPECT_NE(error_of(p).find("\"tile\" is not a preset key"), std::string::npos);
  p = minimal_preset();
  p["num_stages"] = {3};
  EXPECT_NE(error_of(p).find("\"num_stages\" needs \"tiles\""), std::string::npos);
  p = minimal_preset();
  p["dtypes"] = {"fp32"};
  EXPECT_NE(error_of(p).find("allowed: bf16, fp16"), std::string::npos);
  p = minimal_preset();
  p["ranks"] = {16};
  EXPECT_NE(error_of(p).find("\"ranks\""), std::string::npos);
  p = minimal_preset();
  p["sizes"] = {{8192, 4608, 36864}, {8192, 4608, 36864}};
  EXPECT_NE(error_of(p).find("twice"), std::string::npos);
  p = minimal_preset();
  p["variants"] = {"tma_push", "wg_specialisation"};
  EXPECT_NE(error_of(p).find("wg_specialisation"), std::string::npos);
}

// Every integer field through one checked reader: 4294967297 used to become 1, 8.7 8 and
// true 1, and 3000000000 or 1e10 were refused as "the wrong type".
TEST(SweepPreset, IntegerFieldsAreWholeIntegersInTheirRangeNamingTheFieldAndRange) {
  const struct {
    const char* key;
    json value;
    const char* refusal;
  } cases[] = {
      {"n_warmup", 4294967297LL, "\"n_warmup\" is 4294967297; it must be an integer from 0 to 2147483647"},
      {"n_warmup", 3000000000LL, "\"n_warmup\" is 3000000000; it must be an integer from 0 to 2147483647"},
      {"n_warmup", 1e10, "\"n_warmup\" is 10000000000.0; it must be an integer from 0 to 2147483647"},
      {"n_warmup", -1, "\"n_warmup\" is -1; it must be an integer from 0 to 2147483647"},
      {"n_repeat", 8.7, "\"n_repeat\" is 8.7; it must be an integer from 1 to 2147483647"},
      {"n_repeat", true, "\"n_repeat\" is true; it must be an integer from 1 to 2147483647"},
      {"n_repeat", 18446744073709551615ULL, "\"n_repeat\" is 18446744073709551615; it must be an integer"},
      {"gsize_m", 0, "\"gsize_m\" is 0; it must be an integer from 1 to 2147483647"},
      {"gsize_m", "8", "\"gsize_m\" is \"8\"; it must be an integer from 1 to 2147483647"},
      {"loopback_peers", 8, "\"loopback_peers\" is 8; it must be an integer from 0 to 7"},
  };
  for (const auto& c : cases) {
    json p = minimal_preset();
    p[c.key] = c.value;
    EXPECT_NE(error_of(p).find(c.refusal), std::string::npos) << c.key << " " << c.value.dump() << ": " << error_of(p);
  }
  json p = minimal_preset();
  p["n_warmup"] = 0;
  p["n_repeat"] = 2147483647;
  p["loopback_peers"] = 7;
  const SweepPreset read = parse_preset(p, "test");
  EXPECT_EQ(read.n_warmup, 0);
  EXPECT_EQ(read.n_repeat, 2147483647);
  EXPECT_EQ(read.loopback_peers, 7);
}

// A repeated configuration would be measured twice in every point, one group's rows beside
// the other's.
TEST(SweepPreset, RepeatedConfigurationsAreRefusedNamingTheEntry) {
  json p = minimal_preset();
  p["configs"] = {"128x256x64s4", "128x192x64s4-pingpong", "128x256x64s4"};
  EXPECT_NE(error_of(p).find("\"configs\" holds 128x256x64s4 twice"), std::string::npos) << error_of(p);
  p = minimal_preset();
  p["tiles"] = {{128, 128, 64}, {256, 64, 64}, {128, 128, 64}};
  p["num_stages"] = {2, 3};
  EXPECT_NE(error_of(p).find("\"tiles\" holds [128, 128, 64] twice"), std::string::npos) << error_of(p);
  p["tiles"] = {{128, 128, 64}};
  p["num_stages"] = {3, 2, 3};
  EXPECT_NE(error_of(p).find("\"num_stages\" holds 3 twice"), std::string::npos) << error_of(p);
  p["num_stages"] = {2, 3};
  EXPECT_EQ(error_of(p), "accepted");
}

TEST(SweepRules, RankCountsNeedAGpuEachExceptTheSharedTwoRankRun) {
  EXPECT_EQ(world_skip_reason(1, 1), "");
  EXPECT_EQ(world_skip_reason(2, 1), "");  // 2 ranks sharing one GPU: correctness
  EXPECT_NE(world_skip_reason(4, 1).find("4 ranks need 4 GPUs and 1 is visible"), std::string::npos);
  EXPECT_EQ(world_skip_reason(4, 4), "");
  EXPECT_NE(world_skip_reason(8, 2), "");
}

TEST(SweepRules, ConfigurationsThatCannotRunSayWhy) {
  const ops::AllScatterShape shape{8192, 512, 36864};
  const int smem = gemm::kSm90MaxSmemPerBlock;
  EXPECT_EQ(config_skip_reason(shape, 2, {128, 128, 64, 3}, smem), "");
  // 512 / 8 = 64 columns per rank: narrower than a 128-wide tile (Iris's rule).
  EXPECT_NE(config_skip_reason(shape, 8, {128, 128, 64, 3}, smem).find("fewer than BLK_N = 128"),
            std::string::npos);
  EXPECT_NE(config_skip_reason(shape, 2, {256, 128, 64, 6}, smem).find("shared memory"),
            std::string::npos);
  EXPECT_NE(config_skip_reason(shape, 2, {128, 128, 64, 4}, smem).find("not built"), std::string::npos);
}

TEST(SweepRules, PlanSkipsTheShapeOrEachVariantThatCannotRun) {
  CommandLine cl;
  cl.shape = {8192, 4608, 36864};
  ASSERT_EQ(parse_variants("all", cl.variants), "");
  const std::vector<std::optional<gemm::KernelConfig>> configs{gemm::KernelConfig{128, 128, 64, 3},
                                                               gemm::KernelConfig{128, 128, 64, 4}};
  PointPlan plan = plan_point(cl, configs, 2, 132, gemm::kSm90MaxSmemPerBlock);
  ASSERT_EQ(plan.groups.size(), 1u);  // 128x128x64s4 is not built
  EXPECT_EQ(plan.groups[0].variants.size(), std::size(ops::kScatterVariants));
  ASSERT_EQ(plan.skipped.size(), 1u);
  EXPECT_EQ(plan.skipped[0].config, configs[1]);

  cl.op.gemm_sms = 132;  // every SM computes: wg_specialization has no copy blocks left
  plan = plan_point(cl, {configs[0]}, 2, 132, gemm::kSm90MaxSmemPerBlock);
  ASSERT_EQ(plan.groups.size(), 1u);
  bool named = false;
  for (const Row& row : plan.skipped)
    named |= row.name == "wg_specialization" && row.skipped.find("gemm_sms") != std::string::npos;
  EXPECT_TRUE(named);

  cl.op.gemm_sms = 0;
  plan = plan_point(cl, configs, 3, 132, gemm::kSm90MaxSmemPerBlock);  // 4608 / 3 = 1536, fine
  EXPECT_FALSE(plan.groups.empty());
  cl.shape.n = 4600;  // not divisible by 8 ranks: one row for the whole point
  plan = plan_point(cl, configs, 8, 132, gemm::kSm90MaxSmemPerBlock);
  EXPECT_TRUE(plan.groups.empty());
  ASSERT_EQ(plan.skipped.size(), 1u);
  EXPECT_NE(plan.skipped[0].skipped.find("4600"), std::string::npos);
}

TEST(SweepRules, APointTooLargeForTheGivenHeapIsSkippedWithTheSizeToGive) {
  CommandLine cl;
  ASSERT_EQ(parse_variants("all", cl.variants), "");
  cl.heap_size = std::uint64_t{512} << 20;  // 512 MiB
  cl.shape = {4096, 4608, 8192};             // A 64 MiB, B shard 36 MiB, C twice 72 MiB
  EXPECT_FALSE(plan_point(cl, {std::nullopt}, 2, 132, gemm::kSm90MaxSmemPerBlock).groups.empty());
  cl.shape = {8192, 4608, 36864};  // A alone is 576 MiB
  const PointPlan plan = plan_point(cl, {std::nullopt}, 2, 132, gemm::kSm90MaxSmemPerBlock);
  EXPECT_TRUE(plan.groups.empty());
  ASSERT_EQ(plan.skipped.size(), 1u);
  EXPECT_NE(plan.skipped[0].skipped.find("cannot hold the matrices"), std::string::npos) << plan.skipped[0].skipped;
  EXPECT_NE(plan.skipped[0].skipped.find("give at least 1138 MiB"), std::string::npos) << plan.skipped[0].skipped;
}

// X's heap is large and its other buffers small, Y the other way round: each fits alone,
// not together. One launch takes X (the heap is sized for it), the next Y alone; a point
// too large even alone is skipped with the reason.
TEST(SweepRules, ALaunchMeasuresWhatFitsBesideItsHeapAndSkipsWhatNeverFits) {
  CommandLine x, y, huge;
  x.validate = y.validate = huge.validate = true;
  x.baselines = y.baselines = huge.baselines = false;
  x.shape = {8192, 8192, 1 << 20};  // A 16 GiB
  y.shape = {65536, 65536, 1024};   // C 8 GiB twice on the heap, the fp32 reference 16 GiB beside it
  huge.shape = {1 << 20, 1 << 20, 1024};
  const std::uint64_t room = std::max(device_bytes_needed(x, 2), device_bytes_needed(y, 2));
  ASSERT_GT(heap_bytes_needed(x, 2) + (device_bytes_needed(y, 2) - heap_bytes_needed(y, 2)), room)
      << "the premise: X's heap and Y's other buffers do not fit together";

  const LaunchMemory first = plan_launch_memory({y, huge, x}, 2, room);
  EXPECT_EQ(first.heap, heap_bytes_needed(x, 2));
  EXPECT_EQ(first.now, std::vector<std::size_t>{2});
  ASSERT_EQ(first.skipped.size(), 1u);
  EXPECT_EQ(first.skipped[0].first, 1u);
  EXPECT_NE(first.skipped[0].second.find("needs about"), std::string::npos) << first.skipped[0].second;

  const LaunchMemory next = plan_launch_memory({y}, 2, room);
  EXPECT_EQ(next.heap, heap_bytes_needed(y, 2));
  EXPECT_EQ(next.now, std::vector<std::size_t>{0});
  EXPECT_TRUE(next.skipped.empty());

  // A heap the user gave is the launch's heap, whatever the points need.
  y.heap_size = heap_bytes_needed(y, 2) + (std::uint64_t{1} << 30);
  EXPECT_EQ(plan_launch_memory({y}, 2, 2 * room).heap, y.heap_size);
}

TEST(SweepRules, OneRankPushesToLoopbackCopiesWithoutBaselines) {
  const SweepPreset preset = load_preset(kPresets + "default.json");
  const std::vector<SweepPoint> points = expand(preset);
  CommandLine base;
  EXPECT_EQ(point_command_line(base, preset, points.front()).op.loopback_peers, 1);
  EXPECT_FALSE(point_command_line(base, preset, points.front()).baselines);  // nothing to scatter
  EXPECT_EQ(point_command_line(base, preset, points.back()).op.loopback_peers, 0);
  EXPECT_TRUE(point_command_line(base, preset, points.back()).baselines);
  EXPECT_EQ(point_command_line(base, preset, points.back()).n_repeat, 30);
  base.counts_given = true;  // --n_repeat on the command line wins
  base.n_repeat = 7;
  EXPECT_EQ(point_command_line(base, preset, points.back()).n_repeat, 7);
}

struct Parsed {
  int code = 0;
  CommandLine cl;
  std::string stderr_text;
};

Parsed parse_args(std::vector<std::string> args) {
  args.insert(args.begin(), "10_test");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  Parsed p;
  testing::internal::CaptureStderr();
  p.code = parse(int(argv.size()), argv.data(), {"10_test", "test", ops::ScatterVariant::tma_push}, p.cl);
  p.stderr_text = testing::internal::GetCapturedStderr();
  return p;
}

TEST(SweepCommandLine, ThePresetDefinesThePointsAndTheFileName) {
  const std::string preset = kPresets + "short.json";
  Parsed p = parse_args({"--preset", preset});
  ASSERT_EQ(p.code, -1) << p.stderr_text;
  EXPECT_EQ(p.cl.output_file, "sweep-short.jsonl");
  EXPECT_EQ(parse_args({"--preset", preset, "-r", "2", "-o", "x.jsonl"}).cl.output_file, "x.jsonl");
  p = parse_args({"--preset", preset, "-m", "4096"});
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.stderr_text.find("drop -m"), std::string::npos) << p.stderr_text;
  p = parse_args({"--preset", preset, "-r", "4"});
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.stderr_text.find("-r 4"), std::string::npos) << p.stderr_text;
  p = parse_args({"--preset", kPresets + "missing.json"});
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.stderr_text.find("missing.json"), std::string::npos) << p.stderr_text;
  EXPECT_EQ(parse_args({"--preset", preset, "-o", ""}).code, 2);
}

}  // namespace
}  // namespace symm::examples::gemm_all_scatter
