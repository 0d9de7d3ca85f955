// Reading and expanding sweep presets (sweep_preset.hpp).
#include "sweep_preset.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>

#include "symm/common/error.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

using nlohmann::json;

const std::set<std::string> kKeys = {"description", "sizes",    "dtypes",   "tiles",
                                     "num_stages",  "configs",  "ranks",    "variants", "gsize_m",
                                     "b_layout",    "loopback_peers", "validate", "baselines",
                                     "n_warmup",    "n_repeat"};

// Whether `v` is a whole JSON integer in [lo, hi]. Nothing else is converted: not a float
// (8.7, 1e10), a boolean, or an integer beyond 64 bits, which get<> would truncate or wrap.
bool integer_within(const json& v, std::int64_t lo, std::int64_t hi) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
    return false;
  const std::int64_t i = v.get<std::int64_t>();
  return lo <= i && i <= hi;
}

class Reader {
 public:
  Reader(const json& doc, std::string where) : doc_(doc), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw Error(fmt::format("{}: \"{}\" {}", where_, key, what));
  }
  bool has(const std::string& key) const { return doc_.contains(key); }

  template <class T>
  T value(const std::string& key, T fallback) const {
    if (!has(key)) return fallback;
    try {
      return doc_.at(key).get<T>();
    } catch (const json::exception&) {
      fail(key, fmt::format("has the wrong type ({}): see docs/gemm-all-scatter.md, Sweeps",
                            doc_.at(key).dump()));
    }
  }

  // An integer field in [lo, hi]; `fallback` when absent.
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t lo, std::int64_t hi) const {
    if (!has(key)) return fallback;
    const json& v = doc_.at(key);
    if (!integer_within(v, lo, hi))
      fail(key, fmt::format("is {}; it must be an integer from {} to {}", v.dump(), lo, hi));
    return v.get<std::int64_t>();
  }

  // A non-empty list of integers, each in [lo, hi].
  std::vector<std::int64_t> integers(const json& list, const std::string& key, std::int64_t lo,
                                     std::int64_t hi) const {
    if (!list.is_array() || list.empty()) fail(key, "must be a non-empty list of integers");
    std::vector<std::int64_t> out;
    for (const json& v : list) {
      if (!integer_within(v, lo, hi))
        fail(key, fmt::format("holds {}; each value must be an integer from {} to {}", v.dump(), lo, hi));
      out.push_back(v.get<std::int64_t>());
    }
    return out;
  }
  std::vector<std::int64_t> integers(const std::string& key, std::int64_t lo, std::int64_t hi) const {
    if (!has(key)) fail(key, "is required");
    return integers(doc_.at(key), key, lo, hi);
  }

  // A non-empty list of lists of `width` integers in [lo, hi].
  std::vector<std::vector<std::int64_t>> tuples(const std::string& key, std::size_t width,
                                                std::int64_t lo, std::int64_t hi) const {
    const json& list = doc_.at(key);
    if (!list.is_array() || list.empty())
      fail(key, fmt::format("must be a non-empty list of [{}] lists", width));
    std::vector<std::vector<std::int64_t>> out;
    for (const json& t : list) {
      out.push_back(integers(t, key, lo, hi));
      if (out.back().size() != width)
        fail(key, fmt::format("holds {}; each entry has {} integers", t.dump(), width));
    }
    return out;
  }

  const json& doc() const { return doc_; }

 private:
  const json& doc_;
  std::string where_;
};

// Refuses the first of `names` (the entries of `key`) that repeats an earlier one: it would
// be measured twice, and one result would replace the other.
void refuse_repeats(const Reader& r, const std::string& key, const std::vector<std::string>& names) {
  std::set<std::string> seen;
  for (const std::string& name : names)
    if (!seen.insert(name).second) r.fail(key, fmt::format("holds {} twice; give each once", name));
}

gemm::DType dtype_named(const Reader& r, const std::string& name) {
  if (name == "bf16") return gemm::DType::bf16;
  if (name == "fp16") return gemm::DType::fp16;
  r.fail("dtypes", fmt::format("holds \"{}\"; allowed: bf16, fp16", name));
}

// "all", "auto", a name, or a list of these: the text --variant takes.
std::string variants_text(const Reader& r) {
  const json& v = r.doc().at("variants");
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array() || v.empty()) r.fail("variants", "must be a name or a non-empty list of names");
  std::string text;
  for (const json& name : v) {
    if (!name.is_string()) r.fail("variants", fmt::format("holds {}; give variant names", name.dump()));
    text += (text.empty() ? "" : ",") + name.get<std::string>();
  }
  return text;
}

// The preset file's text. Only a regular, readable file is read: a directory would open and
// then throw std::ios_base::failure from its first read (EISDIR).
std::string preset_text(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    const char* what = fs::is_directory(path, ec) ? "is a directory"
                       : fs::exists(path, ec)     ? "is not a regular file"
                                                  : "does not exist";
    throw Error(fmt::format("--preset {} {}: give a preset file (bench/presets/*.json)", path, what));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("--preset {}: cannot read the file: {}", path, std::strerror(errno)));
  try {
    return std::string(std::istreambuf_iterator<char>(in), {});
  } catch (const std::exception& e) {
    throw Error(fmt::format("--preset {}: cannot read the file: {}", path, e.what()));
  }
}

}  // namespace

SweepPreset parse_preset(const json& doc, const std::string& where) {
  if (!doc.is_object()) throw Error(fmt::format("{}: a preset is a JSON object", where));
  const Reader r(doc, where);
  for (const auto& [key, value] : doc.items()) {
    if (!kKeys.contains(key)) {
      std::string known;
      for (const std::string& k : kKeys) known += (known.empty() ? "" : ", ") + k;
      r.fail(key, fmt::format("is not a preset key; known: {}", known));
    }
  }
  SweepPreset p;
  p.source = doc;
  p.description = r.value<std::string>("description", "");
  if (!r.has("sizes")) r.fail("sizes", "is required: a list of [M, N, K] (N global)");
  const auto sizes = r.tuples("sizes", 3, 1, gemm::kMaxExtent);
  const auto dtypes = r.value<std::vector<std::string>>("dtypes", {"bf16"});
  if (dtypes.empty()) r.fail("dtypes", "must not be empty");
  const std::string layout = r.value<std::string>("b_layout", "kn");
  if (layout != "kn" && layout != "nk") r.fail("b_layout", fmt::format("is \"{}\"; allowed: kn, nk", layout));
  for (const auto& size : sizes) {
    for (const std::string& dtype : dtypes) {
      p.problems.push_back({size[0], size[1], size[2], dtype_named(r, dtype),
                            layout == "nk" ? gemm::BLayout::nk : gemm::BLayout::kn});
    }
  }
  std::set<std::string> names;
  for (const ops::AllScatterShape& shape : p.problems) {
    if (!names.insert(point_key(1, shape)).second)
      r.fail("sizes", fmt::format("names {} twice (sizes x dtypes must be distinct)",
                                  point_key(1, shape).substr(3)));
  }
  if (r.has("tiles") && r.has("configs"))
    r.fail("configs", "and \"tiles\" both name the configurations: give one of them");
  if (r.has("configs")) {
    if (r.has("num_stages")) r.fail("num_stages", "belongs to \"tiles\"; a name in \"configs\" holds its stages");
    const json& list = doc.at("configs");
    if (!list.is_array() || list.empty()) r.fail("configs", "must be a non-empty list of configuration names");
    std::vector<std::string> names;
    for (const json& name : list) {
      if (!name.is_string()) r.fail("configs", fmt::format("holds {}; give configuration names", name.dump()));
      gemm::KernelConfig c;
      if (std::string why = built_config_named(name.get<std::string>(), c); !why.empty()) r.fail("configs", why);
      p.configs.push_back(c);
      names.push_back(gemm::to_string(c));
    }
    refuse_repeats(r, "configs", names);
  } else if (r.has("tiles")) {
    const auto stages = r.integers("num_stages", 2, 16);
    const auto tiles = r.tuples("tiles", 3, 16, 256);
    std::vector<std::string> stage_names, tile_names;
    for (std::int64_t s : stages) stage_names.push_back(std::to_string(s));
    for (const auto& tile : tiles) tile_names.push_back(fmt::format("[{}]", fmt::join(tile, ", ")));
    refuse_repeats(r, "num_stages", stage_names);
    refuse_repeats(r, "tiles", tile_names);
    for (const auto& tile : tiles) {
      for (std::int64_t s : stages)
        p.configs.push_back(gemm::KernelConfig{int(tile[0]), int(tile[1]), int(tile[2]), int(s)});
    }
  } else {
    if (r.has("num_stages")) r.fail("num_stages", "needs \"tiles\" (without both, the plan chooses)");
    p.configs.push_back(std::nullopt);
  }
  for (std::int64_t w : r.integers("ranks", 1, ops::kMaxWorld)) p.ranks.push_back(int(w));
  if (const std::string why = parse_variants(r.has("variants") ? variants_text(r) : "all", p.variants);
      !why.empty())
    r.fail("variants", why);
  constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
  p.gsize_m = int(r.integer("gsize_m", p.gsize_m, 1, kIntMax));
  p.loopback_peers = int(r.integer("loopback_peers", p.loopback_peers, 0, ops::kMaxWorld - 1));
  p.validate = r.value<bool>("validate", p.validate);
  p.baselines = r.value<bool>("baselines", p.baselines);
  p.n_warmup = int(r.integer("n_warmup", p.n_warmup, 0, kIntMax));
  p.n_repeat = int(r.integer("n_repeat", p.n_repeat, 1, kIntMax));
  return p;
}

SweepPreset load_preset(const std::string& path) {
  json doc;
  try {
    doc = json::parse(preset_text(path));
  } catch (const json::exception& e) {
    throw Error(fmt::format("--preset {}: not JSON: {}", path, e.what()));
  }
  return parse_preset(doc, "--preset " + path);
}

std::string point_key(int world, const ops::AllScatterShape& s) {
  return fmt::format("{}r {}x{}x{} {}", world, s.m, s.n, s.k, gemm::to_string(s.dtype));
}

std::vector<SweepPoint> expand(const SweepPreset& preset) {
  std::vector<int> worlds = preset.ranks;
  std::sort(worlds.begin(), worlds.end());
  worlds.erase(std::unique(worlds.begin(), worlds.end()), worlds.end());
  std::vector<SweepPoint> points;
  for (int world : worlds) {
    for (const ops::AllScatterShape& shape : preset.problems)
      points.push_back({world, shape, point_key(world, shape)});
  }
  return points;
}

}  // namespace symm::examples::gemm_all_scatter
