// The table and the JSON rows of a GEMM + all-scatter run (report.hpp).
#include "report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "symm/host/results.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

using nlohmann::json;

// The figures derived from a row and the rows it is compared with.
struct Figures {
  std::optional<double> total_ms, tflops, speedup, vs_gemm_alone;
  std::string baseline;  // the row `speedup` is taken against
};

// The timed row called `name` (of `group`, where given).
const Row* timed_row(const std::vector<Row>& rows, const std::string& name,
                     std::optional<int> group = std::nullopt) {
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) {
    return r.name == name && r.time && (!group || r.group == *group);
  });
  return it == rows.end() ? nullptr : &*it;
}

// The first of kPreferredBaselines that was timed; empty when none was.
std::string preferred_baseline(const std::vector<Row>& rows) {
  for (const char* name : kPreferredBaselines) {
    if (timed_row(rows, name)) return name;
  }
  return {};
}

Figures figures_of(const Row& row, const std::vector<Row>& rows, const ops::AllScatterShape& s) {
  Figures f;
  f.baseline = preferred_baseline(rows);
  if (!row.time) return f;
  const double ms = row.time->headline_ms;
  f.total_ms = ms;
  f.tflops = 2.0 * double(s.m) * double(s.n) * double(s.k) / (ms * 1e9);
  if (!f.baseline.empty()) f.speedup = timed_row(rows, f.baseline)->time->headline_ms / ms;
  if (const Row* alone = timed_row(rows, kGemmAlone, row.group))
    f.vs_gemm_alone = ms / alone->time->headline_ms;
  return f;
}

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json or_null(int v) { return v > 0 ? json(v) : json(nullptr); }

std::string cell(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : "-";
}

// "auto (tma_push)" for the plan's choice, else the contender's name.
std::string display_name(const Row& row) {
  return row.requested == "auto" ? "auto (" + row.name + ")" : row.name;
}

std::string title(const RunFacts& f) {
  const ops::AllScatterShape& s = f.cl.shape;
  return fmt::format("{}: M={} N={} K={} {}, B {}, {} rank{} on {} GPU{}{}", f.program.name, s.m,
                     s.n, s.k, gemm::to_string(s.dtype), gemm::to_string(s.b_layout), f.world,
                     f.world == 1 ? "" : "s", f.gpus, f.gpus == 1 ? "" : "s",
                     f.ranks_share_gpus ? " (ranks share GPUs: correctness run, not speed)" : "");
}

}  // namespace

void print_table(const RunFacts& facts, const std::vector<Row>& rows) {
  if (std::none_of(rows.begin(), rows.end(), [](const Row& r) { return r.time.has_value(); })) return;
  const std::string baseline = preferred_baseline(rows);
  fmt::print("\n{}\n", title(facts));
  const std::string vs_baseline = baseline.empty() ? "vs baseline" : "vs " + baseline;
  const std::size_t width = std::max<std::size_t>(12, vs_baseline.size());
  fmt::print("  {:<24} {:>9} {:>8} {:>7} {:>8} {:>{}} {:>10} {:>6}  {}\n", "variant", "total_ms",
             "TFLOP/s", "slowest", "skew_ms", vs_baseline, width, "vs gemm", "valid",
             "tile, SMs (gemm/comm)");
  for (const Row& row : rows) {
    if (!row.time) continue;
    const Figures f = figures_of(row, rows, facts.cl.shape);
    const std::string valid = row.valid ? (*row.valid ? "yes" : "NO") : "-";
    std::string setup = row.config ? gemm::to_string(*row.config) : "";
    if (row.gemm_sms > 0) setup += fmt::format(", {}/{}", row.gemm_sms, row.comm_sms);
    fmt::print("  {:<24} {:>9} {:>8} {:>7} {:>8} {:>{}} {:>10} {:>6}  {}\n", display_name(row),
               cell(f.total_ms, "{:.3f}"), cell(f.tflops, "{:.1f}"), row.time->slowest_rank,
               fmt::format("{:.3f}", row.time->skew_ms), cell(f.speedup, "{:.2f}x"), width,
               cell(f.vs_gemm_alone, "{:.2f}x"), valid, setup);
  }
  for (const Row& row : rows) {
    if (!row.skipped.empty()) fmt::print("  skipped {}: {}\n", row.name, row.skipped);
  }
  fmt::print("  total_ms: slowest rank's median; TFLOP/s: 2MNK / total_ms over all ranks; "
             "vs baseline: its total_ms / this; vs gemm: this / gemm_alone's\n");
  std::fflush(stdout);
}

std::vector<json> rows_json(const RunFacts& facts, const std::vector<Row>& rows) {
  const ops::AllScatterShape& s = facts.cl.shape;
  std::vector<json> out;
  for (const Row& row : rows) {
    const Figures f = figures_of(row, rows, s);
    const auto tile = [&](int gemm::KernelConfig::*field) {
      return row.config ? json((*row.config).*field) : json(nullptr);
    };
    json j = {{"program", facts.program.name},
              {"m", s.m},
              {"n", s.n},
              {"k", s.k},
              {"world", facts.world},
              {"gpus", facts.gpus},
              {"ranks_share_gpus", facts.ranks_share_gpus},
              {"dtype", gemm::to_string(s.dtype)},
              {"b_layout", gemm::to_string(s.b_layout)},
              {"variant", row.name.empty() ? json(nullptr) : json(row.name)},
              {"requested", row.requested.empty() ? json(nullptr) : json(row.requested)},
              {"BLK_M", tile(&gemm::KernelConfig::blk_m)},
              {"BLK_N", tile(&gemm::KernelConfig::blk_n)},
              {"BLK_K", tile(&gemm::KernelConfig::blk_k)},
              {"num_stages", tile(&gemm::KernelConfig::stages)},
              {"gsize_m", or_null(row.gsize_m)},
              {"gemm_sms", or_null(row.gemm_sms)},
              {"comm_sms", row.gemm_sms > 0 ? json(row.comm_sms) : json(nullptr)},
              {"loopback_peers", facts.cl.op.loopback_peers},
              {"seed", facts.seed},
              {"total_ms", or_null(f.total_ms)},
              {"tflops", or_null(f.tflops)},
              {"speedup_vs_baseline", or_null(f.speedup)},
              {"baseline", f.baseline.empty() ? json(nullptr) : json(f.baseline)},
              {"ratio_vs_gemm_alone", or_null(f.vs_gemm_alone)},
              {"valid", or_null(row.valid)},
              {"time", row.time ? to_json(*row.time) : json(nullptr)},
              {"plan", row.detail.empty() ? json(nullptr) : json(row.detail)},
              {"skipped", row.skipped.empty() ? json(nullptr) : json(row.skipped)}};
    if (facts.ranks_share_gpus) j["note"] = "correctness run, not speed";
    out.push_back(std::move(j));
  }
  return out;
}

void write_results(const RunFacts& facts, const std::vector<Row>& rows, const Runtime& rt, int argc,
                   char** argv) {
  if (facts.cl.output_file.empty()) return;
  ResultsWriter results(argc, argv, rt);
  for (json& row : rows_json(facts, rows)) results.add_row(std::move(row));
  results.write(facts.cl.output_file);
}

}  // namespace symm::examples::gemm_all_scatter
