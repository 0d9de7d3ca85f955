// What a cuBLASLt algorithm runs (CublasLtConfig), read from its configuration attributes
// and named with the toolkit's own enum names (the table generated from cublasLt.h).
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symm/baselines/cublaslt_gemm.hpp"

namespace symm::baselines {
namespace {

// What an algorithm without a tile or stage count reports (its attribute is *_UNDEFINED).
constexpr std::string_view kUndefined = "undefined";

enum class LtEnum { matmul_tile, matmul_stages, cluster_shape };

struct LtName {
  LtEnum kind;
  std::uint32_t id;
  std::string_view name;  // the enum's name after its prefix: "72x128", "64x4", "2x4x1"
};

constexpr LtName kLtNames[] = {
#include "cublaslt_names.inc"
};

std::optional<std::string_view> lt_name(LtEnum kind, std::uint32_t id) {
  for (const LtName& n : kLtNames)
    if (n.kind == kind && n.id == id) return n.name;
  return std::nullopt;
}

// "72x128" -> {"72", "128"}.
std::vector<std::string_view> extents(std::string_view name) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t x = name.find('x', start);
    parts.push_back(name.substr(start, x - start));
    if (x == std::string_view::npos) return parts;
    start = x + 1;
  }
}

bool is_number(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// cuBLASLt's (its M = our N, its N = our M[, K]) as ours, M first; anything else as named.
std::string ours_first(std::string_view lt) {
  std::vector<std::string_view> e = extents(lt);
  if (e.size() < 2 || !is_number(e[0]) || !is_number(e[1])) return std::string(lt);
  std::string text = fmt::format("{}x{}", e[1], e[0]);
  for (std::size_t i = 2; i < e.size(); ++i)
    if (e[i] != "1") text += fmt::format("x{}", e[i]);  // a cluster's depth along K, when not 1
  return text;
}

template <class T>
T config_attribute(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute) {
  T value{};
  std::size_t written = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &value, sizeof value, &written) !=
          CUBLAS_STATUS_SUCCESS ||
      written != sizeof value)
    return T{};
  return value;
}

std::string reduction_name(std::uint32_t scheme) {
  switch (scheme) {
    case CUBLASLT_REDUCTION_SCHEME_NONE: return "none";
    case CUBLASLT_REDUCTION_SCHEME_INPLACE: return "inplace";
    case CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE: return "compute_type";
    case CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE: return "output_type";
    default: return fmt::format("scheme {}", scheme);
  }
}

// The enum's name, or its number where this toolkit's header does not name it.
std::string named(LtEnum kind, std::uint32_t id, std::string_view what) {
  if (const auto name = lt_name(kind, id)) return std::string(*name);
  return fmt::format("{} {}", what, id);
}

}  // namespace

CublasLtConfig describe(const cublasLtMatmulAlgo_t& algo) {
  CublasLtConfig c;
  c.algo_id = config_attribute<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_ID);
  const auto tile = config_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID);
  c.tile = tile == CUBLASLT_MATMUL_TILE_UNDEFINED ? std::string(kUndefined)
                                                 : ours_first(named(LtEnum::matmul_tile, tile, "tile"));
  const auto stages = config_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID);
  c.stages = stages == CUBLASLT_MATMUL_STAGES_UNDEFINED ? std::string(kUndefined)
                                                         : named(LtEnum::matmul_stages, stages, "stages");
  const auto cluster = config_attribute<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
  c.cluster = cluster == CUBLASLT_CLUSTER_SHAPE_AUTO ? "auto"
                                                     : ours_first(named(LtEnum::cluster_shape, cluster, "cluster"));
  c.k_splits = config_attribute<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
  c.reduction = reduction_name(config_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME));
  c.swizzle = config_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
  c.custom_option = config_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
  return c;
}

std::string CublasLtConfig::name() const {
  // "64x4" stages: K elements per stage, then their count, as in our "128x256x64s4".
  const std::vector<std::string_view> s = extents(stages);
  std::string text = tile;
  // Kernels without TMA pipelines (what cuBLASLt runs on rows TMA cannot read) leave the
  // stages undefined: the name then has none.
  if (s.size() == 2) text += fmt::format("x{}s{}", s[0], s[1]);
  else if (stages != kUndefined) text += fmt::format(" ({})", stages);
  if (cluster != "1x1") text += fmt::format("c{}", cluster);
  if (k_splits > 1) text += fmt::format("-k{}", k_splits);
  return text;
}

}  // namespace symm::baselines
