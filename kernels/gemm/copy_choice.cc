// Reading straddling rows in place or through copies, as shares of the GEMM's time
// (copy_choice.hpp).
#include "copy_choice.hpp"
#include "cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace symm::gemm::detail {
namespace {

// Rows that start inside a 32-byte sector (operand_copies.cc) load as if L2 served each in
// two pieces (the model counts one piece per row, two per straddling row). The kernel keeps
// full speed while its blocks ask L2 for at most this many row pieces per K iteration and
// output element, and slows as a power of the excess beyond (every fit shape's rows start
// 16 bytes into a sector). Fit to the slowdowns against the same
// tile on whole-line rows (bench/results/gemm/2026-12-01-clusters, 2026-12-02-quad-7e7dbc8,
// 2026-12-02-swapped-af7799e), measured (model): 128x256 in 2 x 1 clusters 1.02-1.06
// (1.05), 128x192 in 2 x 1 clusters 1.13-1.17 (1.15), 192x160 in 1 x 2 clusters 1.08
// (1.09), 200x128 swapped in 2 x 1 clusters 1.22 (1.24), 128x256 alone 1.30 on 777 rows
// but 1.46-1.6 on 6144 x 3456 x 4104 (1.33), 128x256 in 2 x 2 clusters 1.0 (1.0).
constexpr double kFullSpeedPiecesPerOutput = 0.0145;
constexpr double kExcessPiecesExponent = 0.6;
// Ping-pong blocks lose more than their pieces say: 128x192 ping-pong pairs ran 0.80-0.85
// of cuBLASLt on straddling rows (6120 x 3400 x 4104, 3000 x 5000 x 2008, 12296 x 2792 x
// 1000) where 256x160 pairs ran 0.91-1.03, about 1.25 slower than on whole-line rows
// against the pieces' 1.15 (bench/results/gemm/2026-12-02-wide-2a92a64). Fit, not derived.
constexpr double kPingpongPiecesFactor = 1.15;

// Row pieces a block of c asks L2 for per K iteration and output element.
double l2_pieces_per_output(const KernelConfig& c, Straddling s) {
  const double a_rows = double(c.blk_m) / c.cluster_n, b_rows = double(c.blk_n) / c.cluster_m;
  const double pieces = (a_rows * (s.a ? 2 : 1) + b_rows * (s.b ? 2 : 1)) / (double(c.blk_m) * c.blk_n);
  return c.pingpong() && s.any() ? pieces * kPingpongPiecesFactor : pieces;
}

// The aligned GEMM's FLOPs that take as long as moving one byte in the copy kernel (read
// or write): about 785 TFLOP/s over the 3.1 TB/s copy_rows.cu measured there; and those
// that take as long as launching one copy (about 3 us).
constexpr double kFlopsPerMovedByte = 250;
constexpr double kFlopsPerCopyLaunch = 785e12 * 3e-6;

// p as the kernel will see it: copied operands at a 16-byte aligned placeholder address.
GemmProblem as_launched(const GemmProblem& p, const OperandCopies& copies) {
  void* placeholder = reinterpret_cast<void*>(std::uintptr_t{1} << 20);
  return with_copies(p, copies, placeholder, placeholder, placeholder);
}

}  // namespace

std::vector<CopyChoice> copy_choices(const GemmProblem& p, const GemmOptions& o, const DeviceLimits& d) {
  const bool valid = validate(p).empty();
  if (!o.operand_copies || d.cc_major != 9 || d.cc_minor != 0 || !valid)
    return {CopyChoice{{}, p, valid ? straddles(p) : Straddling{}}};
  const OperandCopies needed = required_copies(p);
  const GemmProblem launched = as_launched(p, needed);
  std::vector<CopyChoice> choices{CopyChoice{needed, launched, straddles(launched)}};
  if (choices.front().straddled.any()) {
    const OperandCopies all = straddle_copies(p);
    const int launches = (all.a.needed() && !needed.a.needed()) + (all.b.needed() && !needed.b.needed());
    choices.push_back(
        CopyChoice{all, as_launched(p, all), {}, moved_bytes(all) - moved_bytes(needed), launches});
  }
  return choices;
}

double cost_with(const CopyChoice& choice, const KernelConfig& c, const TileScheduler& s, int num_blocks) {
  const GemmProblem& p = choice.launched;
  const double gemm_flops = 2.0 * double(p.m) * double(p.n) * double(p.k);
  const double copy_flops =
      double(choice.extra_bytes) * kFlopsPerMovedByte + choice.extra_launches * kFlopsPerCopyLaunch;
  return problem_cost(p, c, s, num_blocks) *
         (choice.straddled.any() ? straddle_slowdown(c, choice.straddled) : 1.0 + copy_flops / gemm_flops);
}

double straddle_slowdown(const KernelConfig& c, Straddling s) {
  const auto time = [](double pieces) {
    return std::max(1.0, std::pow(pieces / kFullSpeedPiecesPerOutput, kExcessPiecesExponent));
  };
  return time(l2_pieces_per_output(c, s)) / time(l2_pieces_per_output(c, {}));
}

}  // namespace symm::gemm::detail
