#pragma once
// Rank bodies of the GEMM + all-scatter tests (all_scatter_ranks.cc).
#include <optional>

#include "harness.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::test {

struct ScatterCase {
  ops::AllScatterShape shape;
  ops::GemmAllScatterOptions options;
  int iterations = 1;   // runs, each validated; inputs alternate between two sets
  bool graph = false;   // replay a captured CUDA graph per input set instead of run()
};

// Every rank runs the case and checks after every run that its whole C holds, bit for
// bit, what our GEMM alone computes for each rank's shard (and so does every loopback
// buffer). C is poisoned (NaN) before every run. Returns 0 when every check passed.
int all_scatter_matches_gemm_alone(Runtime& rt, const ScatterCase& c);

// A wait out of budget: one rank with a loopback peer and a GEMM whose first tile takes
// longer than SYMM_WAIT_TIMEOUT_MS; the comm blocks time out. Prints the failure report
// (if any) and returns 3 when the run failed as it should, 0 if it did not fail.
int comm_wait_times_out(Runtime& rt);

// After a first run together, rank 1 never joins the next: rank 0's stream barrier times
// out (and traps).
int peer_never_arrives(Runtime& rt);

// Two ranks: rank 1 constructs the op with another M, and every rank's constructor
// refuses, naming M and both values; the same shape then runs. 0 when both hold.
int ranks_given_different_shapes_all_refuse(Runtime& rt);

// Two ranks: rank 1 runs into a C at another heap offset, and every rank's run refuses
// before any launch, naming both offsets; the same C then runs. 0 when both hold.
int c_at_another_offset_is_refused_on_every_rank(Runtime& rt);

// Two ranks: rank 1 runs with an A 2 bytes past a 16-byte boundary, which TMA cannot read;
// rank 1 refuses naming A, rank 0 naming rank 1, before any launch; aligned operands then
// run. 0 when both hold.
int misaligned_a_on_one_rank_stops_every_rank(Runtime& rt);

// Two ranks: rank 1 runs with an A in malloc'd host memory, which the GPU cannot read;
// rank 1 refuses naming A, rank 0 naming rank 1, before any launch; device operands then
// run. 0 when both hold.
int host_a_on_one_rank_stops_every_rank(Runtime& rt);

// A run whose A lies inside C (which the peers write) is refused before any launch, and
// the op then runs separate operands: 0 when both hold, else 1 with what went wrong.
int operands_overlapping_c_are_refused(Runtime& rt);

// A traced run of options.variant (trace_tiles set here): every tile inside C computed
// once per consumer warpgroup and a cluster's tiles past M or N never, pushed once where
// blocks push (copiers, fused_sequential), spans ordered and ending before the barrier let
// the rank go; tma_push warpgroups end with a drain. `gemm_blocks_push`: some tiles must
// have been pushed by GEMM blocks (copier ids below the plan's gemm_sms).
int traced_run_covers_every_tile(Runtime& rt, ops::GemmAllScatterOptions options, bool gemm_blocks_push = false);

}  // namespace symm::test
