// symm-bench gemm's presets: the committed ones read as before, and every malformed one
// is refused with the file and the key named (these used to crash: worlds [0] divided by
// zero, an empty shape read out of bounds).
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <string>

#include "gemm_preset.hpp"
#include "symm/common/error.hpp"

namespace symm::bench {
namespace {

std::string refusal(const std::string& text) {
  try {
    parse_gemm_preset(text, "p.json");
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

TEST(GemmPreset, QuickPresetGivesTheSquareAndEveryShard) {
  const GemmPreset p = parse_gemm_preset(
      R"({"square": [[8192, 8192, 8192]], "sharded": {"worlds": [1, 8], "shapes": [[8192, 4608, 36864]]},
          "fewer_sms": [16]})",
      "quick.json");
  ASSERT_EQ(p.shapes.size(), 3u);
  EXPECT_EQ(p.shapes[0].n, 8192);
  EXPECT_EQ(p.shapes[2].n, 576);
  EXPECT_EQ(p.shapes[2].world, 8);
  EXPECT_EQ(p.fewer_sms, std::vector<int>{16});
}

// A world that does not divide a sharded shape's N used to drop that shard without a word.
TEST(GemmPreset, AWorldThatDoesNotDivideAShardedShapeIsRefusedNamingBoth) {
  EXPECT_NE(refusal(R"({"sharded": {"worlds": [1, 5, 8], "shapes": [[8192, 4608, 36864]]}})")
                .find("sharded.shapes[0] [8192, 4608, 36864]: N = 4608 does not divide over world 5"),
            std::string::npos)
      << refusal(R"({"sharded": {"worlds": [1, 5, 8], "shapes": [[8192, 4608, 36864]]}})");
}

// A repeated problem was measured twice and counted twice in the geomeans; a repeated
// fewer_sms value was timed twice, one JSON entry replacing the other.
TEST(GemmPreset, RepeatsAreRefusedNamingTheEntry) {
  const struct {
    const char* text;
    const char* names;
  } cases[] = {
      {R"({"square": [[8, 8, 8], [16, 8, 8], [8, 8, 8]]})", "square[2] is the problem of square[0] again"},
      {R"({"square": [[64, 32, 8]], "sharded": {"worlds": [2], "shapes": [[64, 64, 8]]}})", ""},
      {R"({"square": [[64, 64, 8]], "sharded": {"worlds": [1], "shapes": [[64, 64, 8]]}})",
       "sharded.shapes[0] on world 1 is the problem of square[0] again"},
      {R"({"sharded": {"worlds": [1], "shapes": [[64, 64, 8], [64, 64, 8]]}})",
       "sharded.shapes[1] on world 1 is the problem of sharded.shapes[0] on world 1 again"},
      {R"({"sharded": {"worlds": [2, 2], "shapes": [[64, 64, 8]]}})", "sharded.worlds[1] repeats 2"},
      {R"({"square": [[8, 8, 8]], "fewer_sms": [16, 32, 16]})", "fewer_sms[2] repeats 16"},
  };
  for (const auto& c : cases) {
    const std::string why = refusal(c.text);
    if (*c.names == '\0') {
      EXPECT_EQ(why, "") << c.text << ": another world is another problem";
      continue;
    }
    EXPECT_NE(why.find("preset p.json"), std::string::npos) << c.text << " -> " << why;
    EXPECT_NE(why.find(c.names), std::string::npos) << c.text << " -> " << why;
  }
}

TEST(GemmPreset, CommittedPresetsAreValid) {
  int read = 0;
  for (const auto& f : std::filesystem::directory_iterator(std::string(SYMM_SOURCE_DIR) + "/bench/gemm")) {
    if (f.path().extension() != ".json") continue;
    EXPECT_FALSE(load_gemm_preset(f.path()).shapes.empty()) << f.path();
    ++read;
  }
  EXPECT_GE(read, 2);
}

TEST(GemmPreset, MalformedPresetsAreRefusedNamingTheKey) {
  const struct {
    const char* text;
    const char* names;
  } cases[] = {
      {R"({"sharded": {"worlds": [0], "shapes": [[8, 8, 8]]}})", "sharded.worlds[0]"},
      {R"({"sharded": {"worlds": [-2], "shapes": [[8, 8, 8]]}})", "sharded.worlds[0]"},
      {R"({"square": [[]]})", "square[0]"},
      {R"({"square": [[8192, 8192]]})", "square[0]"},
      {R"({"square": [[8192, 8192, 8192, 1]]})", "square[0]"},
      {R"({"square": [[8192, 0, 8192]]})", "square[0] N"},
      {R"({"square": [[8192, "a", 8192]]})", "square[0] N"},
      {R"({"square": [[8192, 8192, 1e12]]})", "square[0] K"},
      {R"({"square": [[8192, 8192, 4294967296]]})", "square[0] K"},
      {R"({"square": 5})", "square must be a list"},
      {R"({"squares": [[8, 8, 8]]})", "unknown key 'squares'"},
      {R"({"sharded": {"world": [1], "shapes": [[8, 8, 8]]}})", "unknown key 'world' in sharded"},
      {R"({"sharded": [1, 2]})", "sharded must be an object"},
      {R"({"square": [[8, 8, 8]], "fewer_sms": [0]})", "fewer_sms[0]"},
      {R"({"description": "nothing"})", "no shape to run"},
      {R"([1, 2, 3])", "must be a JSON object"},
      {R"({"square": [[8, 8, 8]],)", "not valid JSON"},
      {R"({"square": [[8, 8, 472e95933]]})", "not valid JSON"},  // leaked json's out_of_range (fuzz)
  };
  for (const auto& c : cases) {
    const std::string why = refusal(c.text);
    EXPECT_NE(why.find("preset p.json"), std::string::npos) << c.text << " -> " << why;
    EXPECT_NE(why.find(c.names), std::string::npos) << c.text << " -> " << why;
  }
}

TEST(GemmPreset, AMissingFileSaysWhatToGive) {
  try {
    load_gemm_preset("/nonexistent/preset.json");
    FAIL() << "a missing preset was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bench/gemm/quick.json"), std::string::npos) << e.what();
  }
}

// What a problem holds on the GPU while measured: its operands, the fp32 reference and the
// reserve; shapes whose bytes pass 64 bits saturate (then no GPU has the memory).
TEST(GemmPreset, DeviceBytesCountOperandsReferenceAndReserve) {
  const GemmShape s{1000, 2000, 3000, 1};
  EXPECT_EQ(device_bytes_needed(s, 2),
            (1000ull * 3000 + 2000ull * 3000 + 1000ull * 2000) * 2 + 1000ull * 2000 * 4 + kBenchReserveBytes);
  const std::int64_t most = std::numeric_limits<std::int32_t>::max();
  EXPECT_EQ(device_bytes_needed({most, most, most, 1}, 2), std::numeric_limits<std::uint64_t>::max());
}

}  // namespace
}  // namespace symm::bench
