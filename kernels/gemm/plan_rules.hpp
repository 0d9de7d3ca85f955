#pragma once
// What the WGMMA plan (plan.cc, cost_model.cc) and the fallback's plan (fallback_plan.cc)
// share: the split-K model's constants, the alignment rule of vector loads, and the notes
// that say where a knob was clamped.
#include <cstdint>
#include <string>

#include "symm/gemm/plan.hpp"

namespace symm::gemm::detail {

inline constexpr int kMaxSplits = 16;
inline constexpr int kMinKItersPerSplit = 8;
// Writing or adding one fp32 partial tile: 4 bytes per output element through L2, at a
// 132nd of its bandwidth, is about 4 K iterations of the tile's wgmmas.
inline constexpr double kPartialKIters = 4.0;
// The heuristic splits the last wave into units of this many K iterations or more. Same
// call (bench/results/gemm/2026-12-03-tail-7a98e47): 128x192 tiles on 8192 x 4608 x 36864
// split 3 (units of 192 iterations) ran 1.028x of the same tiles whole, 128x256 on 4096 x
// 2304 x 36864 split 5 (115) 1.08x of 128x192 ping-pong; but 128x256 on 16384 x 4096 x 4096
// split 3 (21) 0.974x of the same tiles whole, and on 16384^3 split 8 (32) 0.98x of
// 128x192 ping-pong.
inline constexpr int kMinTailSplitKIters = 64;
// The last wave split for a predicted gain of 1.5 % or more: 16384^3's 8 part-empty tiles of
// 128x256 (62.06 waves) split 4 ways promised 1.2 % and ran 0.952-0.987 of cuBLASLt, where
// 128x192 ping-pong had run 0.976-1.0 (bench/results/gemm/2026-12-03-check-4bbd018,
// -sample-4bbd018, -presets-828da9f).
inline constexpr double kMinTailSplitGain = 0.985;
// Split every tile only for a predicted gain of 3 % or more: the model ignores the waits.
inline constexpr double kMinSplitGain = 0.97;

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }
// The fallback may load A and B by 16-byte cp.async: pointers and rows 16-byte aligned.
inline bool fallback_loads_aligned(const GemmProblem& p) {
  return aligned16(p.a) && aligned16(p.b) && p.lda % 8 == 0 && p.ldb % 8 == 0;
}

// "; k_splits=... clamped to ..." for each knob that asked for more than the problem or the
// device has (empty when none did): appended to the plan's reason.
std::string clamp_notes(const GemmOptions& o, const Plan& plan, const DeviceLimits& d);

// The mma.sync fallback's plan: the configuration given with force_fallback, else the one
// with the lowest cost that takes B's layout; `reason` says why the fallback runs.
Plan fallback_plan(const GemmProblem& p, const GemmOptions& o, const DeviceLimits& d, std::string reason);

}  // namespace symm::gemm::detail
