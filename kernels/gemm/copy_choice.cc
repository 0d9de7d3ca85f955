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
// two pieces (the model counts one piece per row, two per straddling row). L2 serves about
// l2_piece_capacity row pieces per second, in units of (TFLOP/s) x (pieces per K iteration
// and output element): a plan whose mainloop would ask for more runs at that rate, and
// one near it loses a little (a smooth maximum). Fit on an H200 on 6144 x 3456 x 4104
// against the same configuration on K = 4096 (bench/results/gemm/2026-12-03-straddle-66ee5bd,
// 128-byte L2 promotion, rows 16 bytes into a sector), measured (model): 128x128 alone 1.75
// (1.71), 128x144 1.66, 128x160 ping-pong 1.65, 128x192 alone and ping-pong 1.43-1.46,
// 128x256 alone 1.30 (1.37), 256x128 pairs 1.13, 200x128 swapped pairs 1.17, 128x192 pairs
// 1.09, 128x256 pairs, 2 x 2 clusters, 152x256 swapped pairs and 256x160 in 1 x 2 clusters
// 1.04-1.05 (1.0); only A straddling (B as K x N) 1.02-1.03. The straddling runs' rate
// times their pieces was 12.1-13.6 for every configuration that L2 held back.
constexpr double kH200L2PieceCapacity = 13.5;
// The same probes on an H100 (bench/results/gemm/2026-12-05-confirm-h100): the aligned
// rates as on the H200, the straddling ones of the configurations L2 held back 0.83-0.88
// of the H200's (mean 0.85; 128x128 alone 1.98, 128x192 ping-pong 1.73, 128x256 1.48),
// where its memory bandwidth is 0.68 of the H200's. Taken as capacity proportional to the
// bandwidth to the power 0.42, which goes through both.
constexpr double kCapacityBandwidthExponent = 0.42;

double l2_piece_capacity(const DeviceLimits& d) {
  return kH200L2PieceCapacity * std::pow(d.memory_share_of_h200(), kCapacityBandwidthExponent);
}

constexpr double kSmoothMaxExponent = 8.5;
// The aligned GEMM's rate on an H200 (TFLOP/s), which the copies' cost and the straddle
// model's demand are measured against; a block's share of it at efficiency 1.
constexpr double kAlignedGemmTflops = 785;
constexpr double kBlockTflops = kAlignedGemmTflops / 132;

// Row pieces a block of c asks L2 for per K iteration and output element.
double l2_pieces_per_output(const KernelConfig& c, Straddling s) {
  const double a_rows = double(c.blk_m) / c.cluster_n, b_rows = double(c.blk_n) / c.cluster_m;
  return (a_rows * (s.a ? 2 : 1) + b_rows * (s.b ? 2 : 1)) / (double(c.blk_m) * c.blk_n);
}

// The aligned GEMM's FLOPs that take as long as moving one byte in the copy kernel (read
// or write; copy_rows.cu measured 3.1 TB/s on an H200, a rate memory bounds: scaled by the
// GPU's bandwidth) and as launching one copy (about 3 us).
constexpr double kH200FlopsPerMovedByte = kAlignedGemmTflops / 3.1;
constexpr double kFlopsPerCopyLaunch = kAlignedGemmTflops * 1e12 * 3e-6;

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

double cost_with(const CopyChoice& choice, const KernelConfig& c, const TileScheduler& s, int num_blocks,
                 const DeviceLimits& d) {
  const GemmProblem& p = choice.launched;
  const double gemm_flops = 2.0 * double(p.m) * double(p.n) * double(p.k);
  const double copy_flops = double(choice.extra_bytes) * kH200FlopsPerMovedByte / d.memory_share_of_h200() +
                            choice.extra_launches * kFlopsPerCopyLaunch;
  return problem_cost(p, c, s, num_blocks, d) *
         (choice.straddled.any() ? straddle_slowdown(c, choice.straddled, p.b_layout, num_blocks, d)
                                 : 1.0 + copy_flops / gemm_flops);
}

double straddle_slowdown(const KernelConfig& c, Straddling s, BLayout b_layout, int busy_blocks,
                         const DeviceLimits& d) {
  if (!s.any()) return 1.0;
  const double demand = kBlockTflops * efficiency(c, b_layout) * busy_blocks * l2_pieces_per_output(c, s);
  return std::pow(1.0 + std::pow(demand / l2_piece_capacity(d), kSmoothMaxExponent), 1.0 / kSmoothMaxExponent);
}

}  // namespace symm::gemm::detail
