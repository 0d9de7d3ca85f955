// A bounded fuzz of the parsers that read what users write: symm-bench's GEMM presets, the
// GEMM + all-scatter sweep presets, and GEMM configuration names (--config,
// SYMM_GEMM_CONFIG). Random JSON documents (mostly near-valid ones: a committed preset with
// one value or key replaced), random bytes and random names, from a fixed seed so that a
// failure repeats. Each input must parse into something valid or be refused with a
// symm::Error naming where; any other exception, or a crash, fails.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gemm_preset.hpp"
#include "sweep_preset.hpp"
#include "symm/common/error.hpp"
#include "symm/gemm/config.hpp"

namespace {

using nlohmann::json;
using Random = std::mt19937_64;

constexpr std::uint64_t kSeed = 11;  // issue 11
constexpr int kDocuments = 1500, kTexts = 1500, kNames = 3000;

int pick(Random& random, int n) { return std::uniform_int_distribution<int>(0, n - 1)(random); }

std::string random_text(Random& random, const std::string& alphabet, int max_length) {
  std::string text(pick(random, max_length + 1), ' ');
  for (char& c : text) c = alphabet[pick(random, static_cast<int>(alphabet.size()))];
  return text;
}

// Numbers at and around every bound the parsers have: 0, 1, negatives, 2^31, 2^32, 2^63.
json random_number(Random& random) {
  const json numbers[] = {0, 1, -1, 2, 8, 16, 64, 128, 256, 4096, 8192, 4608, 36864,
                          2147483647LL, 2147483648LL, 4294967296LL, -9223372036854775807LL,
                          18446744073709551615ULL, 1.5, -0.0, 1e300, 3};
  return numbers[pick(random, static_cast<int>(std::size(numbers)))];
}

json random_value(Random& random, const std::vector<std::string>& keys, int depth) {
  switch (pick(random, depth > 0 ? 8 : 5)) {
    case 0: return nullptr;
    case 1: return pick(random, 2) == 1;
    case 2: return random_text(random, "abfpkn16x0_,", 6);
    case 3:
    case 4: return random_number(random);
    case 5:
    case 6: {  // lists, often of three numbers: shapes and tuples
      json list = json::array();
      const int n = pick(random, 5);
      for (int i = 0; i < n; ++i)
        list.push_back(pick(random, 3) ? random_number(random) : random_value(random, keys, depth - 1));
      return list;
    }
    default: {
      json object = json::object();
      const int n = pick(random, 4);
      for (int i = 0; i < n; ++i)
        object[keys[pick(random, static_cast<int>(keys.size()))]] = random_value(random, keys, depth - 1);
      return object;
    }
  }
}

// Replaces one value somewhere in `doc` (or adds a key): a document near a valid one.
void mutate(json& doc, Random& random, const std::vector<std::string>& keys) {
  json* at = &doc;
  while ((at->is_object() || at->is_array()) && !at->empty() && pick(random, 3) != 0) {
    auto it = at->begin();
    std::advance(it, pick(random, static_cast<int>(at->size())));
    at = &*it;
  }
  if (at->is_object() && pick(random, 2) == 0)
    (*at)[keys[pick(random, static_cast<int>(keys.size()))]] = random_value(random, keys, 2);
  else
    *at = random_value(random, keys, 2);
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

std::vector<json> committed(const std::vector<std::string>& names) {
  std::vector<json> docs;
  for (const std::string& name : names) docs.push_back(read_json(std::string(SYMM_SOURCE_DIR) + "/" + name));
  return docs;
}

// Runs `parse` on each input; counts the accepted ones, fails on anything but a
// symm::Error that names `where`.
template <class Parse>
int accepted_count(const std::vector<std::string>& inputs, const std::string& where, Parse parse) {
  int accepted = 0;
  for (const std::string& input : inputs) {
    try {
      parse(input);
      ++accepted;
    } catch (const symm::Error& e) {
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what() << "\ninput: " << input;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a symm::Error: " << e.what() << "\ninput: " << input;
    }
  }
  return accepted;
}

// Documents near the committed ones, wholly random ones, and broken texts.
std::vector<std::string> inputs(const std::vector<json>& seeds, const std::vector<std::string>& keys, Random& random) {
  std::vector<std::string> out;
  for (int i = 0; i < kDocuments; ++i) {
    json doc = seeds[pick(random, static_cast<int>(seeds.size()))];
    if (i % 4 == 3)
      doc = random_value(random, keys, 3);
    else
      for (int m = 1 + pick(random, 3); m > 0; --m) mutate(doc, random, keys);
    out.push_back(doc.dump());
  }
  for (int i = 0; i < kTexts; ++i) {
    std::string text = seeds[pick(random, static_cast<int>(seeds.size()))].dump();
    if (i % 2 == 0)
      text.resize(pick(random, static_cast<int>(text.size()) + 1));  // truncated
    else
      text = random_text(random, "{}[]\",:0123456789-.e \x01\xff" "abn", 40);
    out.push_back(text);
  }
  return out;
}

TEST(ParserFuzz, GemmPresetsParseValidOrRefuseNamingTheFile) {
  Random random(kSeed);
  const std::vector<std::string> keys = {"description", "square", "sharded", "worlds", "shapes", "fewer_sms", "x"};
  const auto seeds = committed({"bench/gemm/quick.json", "bench/gemm/issue4.json", "bench/gemm/general.json"});
  int valid = 0;
  const int accepted = accepted_count(inputs(seeds, keys, random), "fuzz.json", [&](const std::string& text) {
    const symm::bench::GemmPreset p = symm::bench::parse_gemm_preset(text, "fuzz.json");
    for (const auto& s : p.shapes) {
      ASSERT_TRUE(s.m >= 1 && s.n >= 1 && s.k >= 1 && s.world >= 1) << text;
    }
    for (int f : p.fewer_sms) ASSERT_GE(f, 1) << text;
    ++valid;
  });
  EXPECT_EQ(accepted, valid);
  EXPECT_GT(accepted, 10) << "the fuzz reaches the accepting paths too";
}

TEST(ParserFuzz, SweepPresetsParseValidOrRefuseNamingTheFile) {
  namespace sweep = symm::examples::gemm_all_scatter;
  Random random(kSeed + 1);
  const std::vector<std::string> keys = {"description", "sizes",   "dtypes",   "tiles",      "num_stages",
                                         "configs",     "ranks",    "variants", "gsize_m",  "b_layout",
                                         "loopback_peers",
                                         "validate",    "baselines", "n_warmup", "n_repeat", "size"};
  const auto seeds = committed({"bench/presets/short.json", "bench/presets/default.json"});
  int valid = 0;  // parsed into a preset that passed every check (texts that are not JSON return early)
  accepted_count(inputs(seeds, keys, random), "fuzz.json", [&](const std::string& text) {
    json doc;
    try {
      doc = json::parse(text);
    } catch (const json::exception&) {
      return;  // load_preset's job (a file that is not JSON); parse_preset takes documents
    }
    const sweep::SweepPreset p = sweep::parse_preset(doc, "fuzz.json");
    ASSERT_FALSE(p.problems.empty()) << text;
    for (const auto& s : p.problems) ASSERT_TRUE(s.m >= 1 && s.n >= 1 && s.k >= 1) << text;
    ASSERT_FALSE(p.ranks.empty()) << text;
    for (int r : p.ranks) ASSERT_GE(r, 1) << text;
    ASSERT_GE(p.gsize_m, 1) << text;
    ASSERT_GE(p.n_repeat, 1) << text;
    ASSERT_GE(p.n_warmup, 0) << text;
    ASSERT_FALSE(sweep::expand(p).empty()) << text;
    ++valid;
  });
  EXPECT_GT(valid, 10) << "the fuzz reaches the accepting paths too";
}

TEST(ParserFuzz, ConfigNamesParseOnlyIntoNamesThatRoundTrip) {
  Random random(kSeed + 2);
  std::vector<std::string> names;
  for (const symm::gemm::KernelConfig& c : symm::gemm::kWgmmaConfigs) names.push_back(symm::gemm::to_string(c));
  int parsed = 0;
  for (int i = 0; i < kNames; ++i) {
    std::string text = names[pick(random, static_cast<int>(names.size()))];
    if (i % 3 == 0) {
      text = random_text(random, "0123456789xsc-pingo \x00", 24);
    } else {  // a built name with a few characters changed, dropped or added
      for (int m = 1 + pick(random, 3); m > 0 && !text.empty(); --m) {
        const int at = pick(random, static_cast<int>(text.size()));
        const char c = "0123456789xsc-9"[pick(random, 15)];
        if (pick(random, 3) == 0) text.erase(at, 1);
        else if (pick(random, 2) == 0) text.insert(text.begin() + at, c);
        else text[at] = c;
      }
    }
    symm::gemm::KernelConfig config;
    if (!symm::gemm::parse_config(text, config)) continue;
    ++parsed;
    symm::gemm::KernelConfig again;
    ASSERT_TRUE(symm::gemm::parse_config(symm::gemm::to_string(config), again)) << text;
    EXPECT_TRUE(again == config) << text << " -> " << symm::gemm::to_string(config);
  }
  EXPECT_GT(parsed, 10);
}

}  // namespace
