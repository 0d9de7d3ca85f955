// Chrome trace events ("X": complete events with ts and dur in microseconds) from tile
// timelines; metadata events name the processes (ranks) and threads (tracks).
#include "trace_file.hpp"

#include "symm/common/error.hpp"
#include "symm/host/gather.hpp"
#include "symm/host/heap.hpp"
#include "symm/host/log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <span>
#include <filesystem>
#include <limits>
#include <set>
#include <utility>

namespace symm::examples::gemm_all_scatter {
namespace {

// Tracks: GEMM warpgroups first (block-major), then each copier's pushes (comm and
// scatter blocks, and GEMM blocks once their tiles are done).
int track_of(const ops::TileEvent& e) { return e.lane < 0 ? 1'000'000 + e.block : 2 * e.block + e.lane; }

std::string track_name(const ops::TileEvent& e) {
  return e.lane < 0 ? fmt::format("block {} pushes", e.block)
                    : fmt::format("block {} warpgroup {}", e.block, e.lane);
}

}  // namespace

nlohmann::json chrome_trace(const std::vector<std::vector<ops::TileEvent>>& per_rank,
                            const std::string& title) {
  // Every rank's zero is its barrier exit (aligned); shift so the earliest event is at 0.
  double earliest = 0;
  for (const auto& events : per_rank)
    for (const ops::TileEvent& e : events) earliest = std::min(earliest, e.begin_us);
  nlohmann::json trace_events = nlohmann::json::array();
  for (std::size_t rank = 0; rank < per_rank.size(); ++rank) {
    trace_events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", rank},
                            {"args", {{"name", fmt::format("rank {}", rank)}}}});
    std::set<std::pair<int, std::string>> tracks;
    for (const ops::TileEvent& e : per_rank[rank]) {
      tracks.insert({track_of(e), track_name(e)});
      nlohmann::json args = {{"block", e.block}, {"lane", e.lane}};
      if (e.tile >= 0) args["tile"] = e.tile;
      trace_events.push_back({{"ph", "X"},
                              {"cat", std::string(ops::to_string(e.kind))},
                              {"name", e.tile >= 0 ? fmt::format("{} {}", ops::to_string(e.kind), e.tile)
                                                   : std::string(ops::to_string(e.kind))},
                              {"pid", rank},
                              {"tid", track_of(e)},
                              {"ts", e.begin_us - earliest},
                              {"dur", e.end_us - e.begin_us},
                              {"args", args}});
    }
    for (const auto& [tid, name] : tracks)
      trace_events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", rank}, {"tid", tid},
                              {"args", {{"name", name}}}});
  }
  return {{"traceEvents", trace_events},
          {"displayTimeUnit", "ns"},
          {"otherData", {{"title", title}, {"time_zero", "each rank's stream barrier exit, aligned"}}}};
}

std::string trace_path(const std::string& output_file, const std::string& variant) {
  const std::filesystem::path p(output_file.empty() ? std::string("gemm_all_scatter.json") : output_file);
  const std::string stem = p.stem().string();
  return (p.parent_path() / (stem + "." + variant + ".trace.json")).string();
}

namespace {

// Every rank's events, by rank (Team::all_gather takes equal sizes: counts first, then
// every rank's events padded to the longest).
std::vector<std::vector<ops::TileEvent>> gather_events(Team& team, std::vector<ops::TileEvent> mine) {
  const std::vector<std::size_t> counts = gather(team, mine.size());
  const std::size_t longest = *std::max_element(counts.begin(), counts.end());
  mine.resize(longest);
  const auto bytes = team.all_gather(std::as_bytes(std::span(mine)));
  std::vector<std::vector<ops::TileEvent>> all(team.world());
  for (int r = 0; r < team.world(); ++r) {
    all[r].resize(counts[r]);
    std::memcpy(all[r].data(), bytes.data() + r * longest * sizeof(ops::TileEvent),
                counts[r] * sizeof(ops::TileEvent));
  }
  return all;
}

}  // namespace

void write_tile_traces(Runtime& rt, const CommandLine& cl, const Operands& operands, cudaStream_t stream) {
  for (const RequestedVariant& requested : cl.variants) {
    HeapScope heap_scope(rt.heap());
    ops::GemmAllScatterOptions options = cl.op;
    options.variant = requested;
    options.trace_tiles = true;
    std::vector<ops::TileEvent> events;
    std::string name;
    {
      ops::GemmAllScatter op(rt, cl.shape, options);
      name = std::string(ops::to_string(op.plan().variant));
      for (int run = 0; run < 2; ++run) op.run(operands.a, operands.b_shard, operands.c, stream);  // 2nd: warm
      rt.barrier(stream);
      events = op.tile_events();
    }
    const auto all = gather_events(rt.team(), std::move(events));
    if (rt.rank() != 0) continue;
    const std::string path = trace_path(cl.output_file, name);
    std::ofstream file(path);
    file << chrome_trace(all, fmt::format("{} M={} N={} K={} on {} ranks", name, cl.shape.m, cl.shape.n,
                                          cl.shape.k, rt.world()))
                .dump();
    file.close();  // the last of it is written here: a full disk shows now, not never
    if (!file) throw Error(fmt::format("--trace_tiles: could not write {}", path));
    log::info(fmt::format("{}: tile trace written to {} (open it in ui.perfetto.dev)", name, path));
  }
}

}  // namespace symm::examples::gemm_all_scatter
