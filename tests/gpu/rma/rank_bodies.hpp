#pragma once
// What each rank runs in the gpu and multigpu tests of the device API. Each returns 0
// when every check passed (failures are logged by the rank).
#include "symm/host/runtime.hpp"

namespace symm::test {

int atomic_rank_body(Runtime& rt);      // atomic_ranks.cu
int rma_rank_body(Runtime& rt);         // rma_ranks.cu
int litmus_rank_body(Runtime& rt);      // litmus_ranks.cu: between ranks, on GPUs of their own
int block_litmus_body(Runtime& rt);     // block_litmus.cu: one rank, between its blocks
int barrier_rank_body(Runtime& rt);     // barrier_ranks.cu
// Rank 0 sends `messages` messages to rank 1, twice (message_ranks.cu).
int message_rank_body(Runtime& rt, int messages);

// These must fail: the last rank's kernel traps with a report (failure_ranks.cu).
int unsatisfiable_wait_body(Runtime& rt);
int narrow_scope_on_peer_body(Runtime& rt);   // needs SYMM_DEBUG (set for that file)
int address_outside_heap_body(Runtime& rt);  // needs SYMM_DEBUG (set for that file)
int range_past_heap_end_body(Runtime& rt);   // needs SYMM_DEBUG (set for that file)

}  // namespace symm::test
