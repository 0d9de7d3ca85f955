#pragma once
// Sweep presets (bench/presets/*.json): a declared grid of GEMM + all-scatter problems,
// expanded into points. A point is one problem on one rank count (world, M, N, K,
// dtype); inside it, every tile configuration of the preset is a group of contenders
// (point.hpp). docs/gemm-all-scatter.md lists the keys.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_line.hpp"
#include "symm/gemm/config.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::examples::gemm_all_scatter {

struct SweepPreset {
  std::string description;
  std::vector<ops::AllScatterShape> problems;  // sizes x dtypes, in the preset's order
  // "configs" by name, or tiles x num_stages; {none} without either: the plan's choice.
  std::vector<std::optional<gemm::KernelConfig>> configs;
  std::vector<int> ranks;                 // rank counts, each run where the machine allows it
  std::vector<RequestedVariant> variants;
  int gsize_m = 8;
  int loopback_peers = 0;                 // world-1 points only: C copies standing for peers
  bool validate = true, baselines = true;
  int n_warmup = 25, n_repeat = 100;      // unless given on the command line
  nlohmann::json source;                  // the preset as read: the sweep file's header
};

struct SweepPoint {
  int world = 1;
  ops::AllScatterShape shape;
  std::string key;  // "2r 8192x4608x36864 bf16": how the sweep file names the point
};

// Reads and checks a preset; throws symm::Error naming the file, the key and what is
// allowed (an unknown key is refused, so a misspelt one cannot be silently ignored).
SweepPreset load_preset(const std::string& path);
SweepPreset parse_preset(const nlohmann::json& doc, const std::string& where);

// Every point, world by world (one launch of the ranks each), then in preset order.
std::vector<SweepPoint> expand(const SweepPreset& preset);
std::string point_key(int world, const ops::AllScatterShape& shape);

}  // namespace symm::examples::gemm_all_scatter
