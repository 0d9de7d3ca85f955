// Reading straddling rows in place or through copies, as shares of the GEMM's time
// (copy_choice.hpp).
#include "copy_choice.hpp"

#include <cstdint>

namespace symm::gemm::detail {
namespace {

// Rows straddling 128-byte lines: the kernel's time over that with whole-line rows
// (2026-12-01, one H200, 6144 x 3456 x 4104 against K = 4096, bench/results/gemm/
// 2026-12-01-clusters): 1.46-1.6 with a block per tile, where L2 serves every row in two
// pieces at its limit; 1.17-1.22 with 2-block clusters, which read half the B rows; 1.01
// with 2 x 2 clusters, which read half of A's rows too (K = 4104 against 4096, 2026-12-02-
// quad-7e7dbc8; 1.05 here for the spread).
double straddle_slowdown(const KernelConfig& c) {
  if (c.cluster_n > 1) return 1.05;
  return c.clustered() ? 1.2 : 1.6;
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
    return {CopyChoice{{}, p, valid && straddles(p)}};
  const OperandCopies needed = required_copies(p);
  const GemmProblem launched = as_launched(p, needed);
  std::vector<CopyChoice> choices{CopyChoice{needed, launched, straddles(launched)}};
  if (choices.front().straddled) {
    const OperandCopies all = straddle_copies(p);
    const int launches = (all.a.needed() && !needed.a.needed()) + (all.b.needed() && !needed.b.needed());
    choices.push_back(
        CopyChoice{all, as_launched(p, all), false, moved_bytes(all) - moved_bytes(needed), launches});
  }
  return choices;
}

double cost_with(const CopyChoice& choice, const KernelConfig& c, const TileScheduler& s, int num_blocks) {
  const GemmProblem& p = choice.launched;
  const double gemm_flops = 2.0 * double(p.m) * double(p.n) * double(p.k);
  const double copy_flops =
      double(choice.extra_bytes) * kFlopsPerMovedByte + choice.extra_launches * kFlopsPerCopyLaunch;
  return predicted_cost(c, s, num_blocks) * (choice.straddled ? straddle_slowdown(c) : 1.0 + copy_flops / gemm_flops);
}

}  // namespace symm::gemm::detail
