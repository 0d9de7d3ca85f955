#pragma once
// Bounds shared by the launcher, the bootstrap channel and the command line.

namespace symm::detail {

// More ranks than this on one host is a typo, not a job (each rank is a process with
// its own GPU context).
inline constexpr int kMaxRanks = 1024;

// Default bound on each bootstrap collective and on the rendezvous
// (SYMM_BOOTSTRAP_TIMEOUT_MS overrides it).
inline constexpr long long kDefaultBootstrapTimeoutMs = 120000;

// Upper bound of every host-side time limit (SYMM_RANK_TIMEOUT_S, --rank_timeout,
// SYMM_BOOTSTRAP_TIMEOUT_MS): a week is far beyond any job, so larger values are typos,
// and it keeps now() + limit far inside the clock's range.
inline constexpr long long kMaxTimeLimitMs = 7LL * 24 * 3600 * 1000;

}  // namespace symm::detail
