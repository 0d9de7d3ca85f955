// Tables and JSON from a Session's figures (records.hpp). Tables are derived from the
// same entries the JSON file holds, never typed separately.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "records.hpp"
#include "symm/host/options.hpp"
#include "symm/host/results.hpp"

namespace symm::examples {
namespace {

using Entry = Records::Entry;
using Key = std::pair<int, int>;  // initiator, target

std::string rank_label(int rank) { return rank == kAllRanks ? "all" : std::to_string(rank); }

std::string key_label(const Key& key) {
  return key.first == kAllRanks ? "all ranks" : fmt::format("{}->{}", key.first, key.second);
}

std::string size_label(std::uint64_t size) { return size == 0 ? "-" : format_bytes(size); }

std::string value_label(const Figure& f) {
  return f.unit == "GB/s" || f.unit == "Mops/s" ? fmt::format("{:.1f}", f.value)
                                                 : fmt::format("{:.3f}", f.value);
}

// Rows of sizes, a column per (initiator, target): the curve of each pair.
void print_curves(const std::vector<const Entry*>& entries, const std::vector<Key>& keys) {
  std::string header = fmt::format("  {:>10}", "size");
  for (const Key& key : keys) header += fmt::format(" {:>10}", key_label(key));
  fmt::print("{}\n", header);
  std::set<std::uint64_t> sizes;
  for (const Entry* e : entries) sizes.insert(e->figure.size);
  for (std::uint64_t size : sizes) {
    std::string row = fmt::format("  {:>10}", size_label(size));
    for (const Key& key : keys) {
      const auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry* e) {
        return e->figure.size == size && Key{e->figure.initiator, e->figure.target} == key;
      });
      row += fmt::format(" {:>10}", it == entries.end() ? "" : value_label((*it)->figure));
    }
    fmt::print("{}\n", row);
  }
}

// A rank x rank matrix (initiator rows, target columns) per size.
void print_matrices(const std::vector<const Entry*>& entries, int world) {
  std::set<std::uint64_t> sizes;
  for (const Entry* e : entries) sizes.insert(e->figure.size);
  for (std::uint64_t size : sizes) {
    fmt::print("  size {}\n  {:>8}", size_label(size), "from\\to");
    for (int j = 0; j < world; ++j) fmt::print(" {:>9}", j);
    fmt::print("\n");
    for (int i = 0; i < world; ++i) {
      std::string row = fmt::format("  {:>8}", i);
      for (int j = 0; j < world; ++j) {
        const auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry* e) {
          return e->figure.size == size && e->figure.initiator == i && e->figure.target == j;
        });
        row += fmt::format(" {:>9}", it == entries.end() ? "-" : value_label((*it)->figure));
      }
      fmt::print("{}\n", row);
    }
  }
}

void print_variant(const Spec& spec, const std::string& variant,
                   const std::vector<const Entry*>& entries, int world) {
  fmt::print("\n{}: {} ({})\n", spec.name, variant, entries.front()->figure.unit);
  std::vector<Key> keys;
  for (const Entry* e : entries) {
    const Key key{e->figure.initiator, e->figure.target};
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  if (keys.size() <= 8) {
    print_curves(entries, keys);
  } else {
    print_matrices(entries, world);
  }
}

// Entries grouped by variant, in the order the variants first appear.
std::vector<std::pair<std::string, std::vector<const Entry*>>> by_variant(
    const std::vector<Entry>& entries) {
  std::vector<std::pair<std::string, std::vector<const Entry*>>> groups;
  for (const Entry& e : entries) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == e.figure.variant; });
    if (it == groups.end()) it = groups.insert(groups.end(), {e.figure.variant, {}});
    it->second.push_back(&e);
  }
  return groups;
}

int world_of(const std::vector<Entry>& entries) {
  int world = 1;
  for (const Entry& e : entries) world = std::max({world, e.figure.initiator + 1, e.figure.target + 1});
  return world;
}

}  // namespace

std::vector<Entry> Records::ratios() const {
  std::vector<Entry> ratios;
  for (const auto& [numerator, denominator] : comparisons) {
    for (const Entry& n : figures) {
      if (n.figure.variant != numerator) continue;
      for (const Entry& d : figures) {
        const Figure& a = n.figure;
        const Figure& b = d.figure;
        if (b.variant == denominator && b.size == a.size && b.initiator == a.initiator &&
            b.target == a.target && b.value > 0) {
          ratios.push_back({{numerator + "/" + denominator, "ratio", a.size, a.initiator,
                             a.target, a.value / b.value},
                            {}});
        }
      }
    }
  }
  return ratios;
}

void Records::print(const Spec& spec) const {
  const int world = world_of(figures);
  for (const auto& [variant, entries] : by_variant(figures)) print_variant(spec, variant, entries, world);
  const auto ratio_entries = ratios();
  for (const auto& [variant, entries] : by_variant(ratio_entries)) {
    print_variant(spec, variant, entries, world);
  }
  std::fflush(stdout);
}

void Records::write(const std::string& path, const Runtime& rt, const Spec& spec) const {
  ResultsWriter results(argc, argv, rt);
  const auto row_of = [&](const Entry& e) {
    const Figure& f = e.figure;
    nlohmann::json row = {{"example", spec.name}, {"variant", f.variant},
                          {"unit", f.unit},       {"size_bytes", f.size},
                          {"initiator", rank_label(f.initiator)},
                          {"target", rank_label(f.target)},
                          {"value", f.value}};
    if (!e.timing.ranks.empty()) row["timing"] = to_json(e.timing);
    return row;
  };
  for (const Entry& e : figures) results.add_row(row_of(e));
  for (const Entry& e : ratios()) results.add_row(row_of(e));
  results.add_row({{"example", spec.name},
                   {"variant", "validation"},
                   {"cases", validation.checks},
                   {"failed", validation.failures}});
  results.write(path);
}

}  // namespace symm::examples
