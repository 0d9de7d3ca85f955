#pragma once
// --trace_tiles: every rank's tile timeline of one variant as a Chrome trace (the JSON
// Perfetto and chrome://tracing open): one process per rank, one track per block and
// warpgroup (or comm block), times aligned across ranks at the moment the run's stream
// barrier let them go.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_line.hpp"
#include "operands.hpp"
#include "symm/host/runtime.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::examples::gemm_all_scatter {

// per_rank[r]: rank r's events (GemmAllScatter::tile_events()). Pure: the cpu tier tests it.
nlohmann::json chrome_trace(const std::vector<std::vector<ops::TileEvent>>& per_rank,
                            const std::string& title);

// "out/run.json" + "tma_push" -> "out/run.tma_push.trace.json"
std::string trace_path(const std::string& output_file, const std::string& variant);

// Collective: one traced run of each of cl's variants (after a warm run), every rank's
// timeline gathered, and rank 0 writing one trace file per variant beside cl.output_file.
void write_tile_traces(Runtime& rt, const CommandLine& cl, const Operands& operands, cudaStream_t stream);

}  // namespace symm::examples::gemm_all_scatter
