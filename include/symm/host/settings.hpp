#pragma once
// The SYMM_* variables of symm's host code, each with its one parser. Programs check them
// all at start-up, before any rank is spawned and before any CUDA or NVML call
// (symm::launch does, and symm-bench, which launches no ranks), and the readers inside
// the ranks call the same functions, so a value means the same in both places.
//
// Each reader looks at the process environment; unset or empty means the default. Any
// other bad value throws symm::Error with one line naming the variable, the value, what
// is allowed and how to fix it:
//   SYMM_WAIT_TIMEOUT_MS='0' is not valid: expected whole milliseconds from 1 to 86400000
//   (a day); fix it, or unset it for the default
// The GEMM's SYMM_GEMM_* variables have their one parser in symm::gemm::GemmOptions::from_env;
// programs that run the GEMM call it at start-up as well. SYMM_JOB_ID and
// SYMM_GIT_COMMIT are free text.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "symm/host/heap_transport.hpp"
#include "symm/host/log.hpp"

namespace symm::settings {

log::Level log_level();                                   // SYMM_LOG_LEVEL; info
std::optional<std::chrono::milliseconds> rank_timeout();  // SYMM_RANK_TIMEOUT_S; 0: no limit
std::chrono::milliseconds bootstrap_timeout();            // SYMM_BOOTSTRAP_TIMEOUT_MS
std::optional<std::uint64_t> heap_size();                 // SYMM_HEAP_SIZE, bytes
HeapTransport heap_transport();                           // SYMM_HEAP_TRANSPORT; auto
std::uint64_t heap_check_every();                         // SYMM_HEAP_CHECK_EVERY; 1
std::optional<std::uint64_t> wait_timeout_ms();           // SYMM_WAIT_TIMEOUT_MS
std::optional<int> local_rank();                          // SYMM_LOCAL_RANK, set by symm::launch

// Every variable above, read once: one line per bad one, empty when all are fine.
std::string check_all();

}  // namespace symm::settings
