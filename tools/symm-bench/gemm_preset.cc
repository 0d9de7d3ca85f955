// Preset files of symm-bench gemm, checked key by key (gemm_preset.hpp).
#include "gemm_preset.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "symm/common/error.hpp"

namespace symm::bench {
namespace {

using json = nlohmann::json;

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
  throw Error(fmt::format("symm-bench: preset {}: {}", path, what));
}

void only_keys(const json& object, std::initializer_list<std::string_view> allowed, const std::string& path,
               const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (std::string_view a : allowed) known = known || key == a;
    if (!known) {
      std::string names;
      for (std::string_view a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
      refuse(path, fmt::format("unknown key '{}'{}; allowed: {}", key, where, names));
    }
  }
}

// A positive integer that fits `Int`, or a refusal naming `what`.
template <class Int>
Int positive(const json& v, const std::string& path, const std::string& what) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 1 ||
      v.get<std::int64_t>() > std::int64_t(std::numeric_limits<Int>::max()))
    refuse(path, fmt::format("{} must be an integer from 1 to {} (got {})", what,
                             std::numeric_limits<Int>::max(), v.dump()));
  return Int(v.get<std::int64_t>());
}

std::vector<std::array<std::int64_t, 3>> shapes_of(const json& j, const std::string& path, const std::string& key) {
  if (!j.is_array()) refuse(path, fmt::format("{} must be a list of [M, N, K] (got {})", key, j.dump()));
  std::vector<std::array<std::int64_t, 3>> shapes;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const json& s = j[i];
    const std::string where = fmt::format("{}[{}]", key, i);
    if (!s.is_array() || s.size() != 3) refuse(path, fmt::format("{} must be [M, N, K] (got {})", where, s.dump()));
    shapes.push_back({positive<std::int32_t>(s[0], path, where + " M"), positive<std::int32_t>(s[1], path, where + " N"),
                      positive<std::int32_t>(s[2], path, where + " K")});
  }
  return shapes;
}

// Distinct positive integers: a repeated world or fewer_sms value would be measured twice.
std::vector<int> positives_of(const json& j, const std::string& path, const std::string& key) {
  if (!j.is_array()) refuse(path, fmt::format("{} must be a list of integers (got {})", key, j.dump()));
  std::vector<int> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const int v = positive<int>(j[i], path, fmt::format("{}[{}]", key, i));
    if (std::find(out.begin(), out.end(), v) != out.end())
      refuse(path, fmt::format("{}[{}] repeats {}; give each value once", key, i, v));
    out.push_back(v);
  }
  return out;
}

// A shape of the preset and where it came from ("square[2]", "sharded.shapes[0] on world 8").
struct NamedShape {
  GemmShape shape;
  std::string origin;
};

// The sharded shapes, each as its shard on each world: a world must divide the shape's N.
std::vector<NamedShape> shards_of(const std::vector<int>& worlds,
                                  const std::vector<std::array<std::int64_t, 3>>& shapes, const std::string& path) {
  std::vector<NamedShape> out;
  for (int world : worlds) {
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const auto& s = shapes[i];
      if (s[1] % world != 0)
        refuse(path, fmt::format("sharded.shapes[{}] [{}, {}, {}]: N = {} does not divide over world {}; give "
                                 "an N that every world of sharded.worlds divides, or drop the world",
                                 i, s[0], s[1], s[2], s[1], world));
      out.push_back({{s[0], s[1] / world, s[2], world}, fmt::format("sharded.shapes[{}] on world {}", i, world)});
    }
  }
  return out;
}

// Each problem once: a repeat would be measured twice and count twice in the geomeans.
void refuse_repeats(const std::vector<NamedShape>& shapes, const std::string& path) {
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      const GemmShape &a = shapes[i].shape, &b = shapes[j].shape;
      if (a.m == b.m && a.n == b.n && a.k == b.k && a.world == b.world)
        refuse(path, fmt::format("{} is the problem of {} again (M {} N {} K {}, world {}); give each once",
                                 shapes[i].origin, shapes[j].origin, a.m, a.n, a.k, a.world));
    }
  }
}

}  // namespace

GemmPreset parse_gemm_preset(const std::string& text, const std::string& path) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error; out_of_range for too large a number (the fuzz)
    refuse(path, fmt::format("not valid JSON ({})", e.what()));
  }
  if (!j.is_object()) refuse(path, "must be a JSON object with square, sharded and fewer_sms");
  only_keys(j, {"description", "square", "sharded", "fewer_sms"}, path, "");
  std::vector<NamedShape> named;
  const auto square = shapes_of(j.value("square", json::array()), path, "square");
  for (std::size_t i = 0; i < square.size(); ++i)
    named.push_back({{square[i][0], square[i][1], square[i][2], 1}, fmt::format("square[{}]", i)});
  const json sharded = j.value("sharded", json::object());
  if (!sharded.is_object()) refuse(path, "sharded must be an object with worlds and shapes");
  only_keys(sharded, {"worlds", "shapes"}, path, " in sharded");
  const auto worlds = positives_of(sharded.value("worlds", json::array({1})), path, "sharded.worlds");
  const auto shapes = shapes_of(sharded.value("shapes", json::array()), path, "sharded.shapes");
  for (NamedShape& s : shards_of(worlds, shapes, path)) named.push_back(std::move(s));
  refuse_repeats(named, path);
  GemmPreset preset;
  for (const NamedShape& s : named) preset.shapes.push_back(s.shape);
  preset.fewer_sms = positives_of(j.value("fewer_sms", json::array()), path, "fewer_sms");
  if (preset.shapes.empty()) refuse(path, "no shape to run: give square or sharded.shapes");
  return preset;
}

GemmPreset load_gemm_preset(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("symm-bench: cannot read preset file '" + path +
                      "': give the path of a JSON preset, e.g. bench/gemm/quick.json");
  std::stringstream text;
  text << in.rdbuf();
  return parse_gemm_preset(text.str(), path);
}

std::uint64_t device_bytes_needed(const GemmShape& shape, int element_bytes) {
  using Wide = unsigned __int128;
  const Wide m = Wide(shape.m), n = Wide(shape.n), k = Wide(shape.k), e = Wide(element_bytes);
  const Wide bytes = (m * k + n * k + m * n) * e + m * n * 4 + kBenchReserveBytes;
  return bytes > std::numeric_limits<std::uint64_t>::max() ? std::numeric_limits<std::uint64_t>::max()
                                                           : std::uint64_t(bytes);
}

}  // namespace symm::bench
