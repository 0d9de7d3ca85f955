// The GEMM's wait-failure record as one line (wait_record.hpp).
#include "symm/gemm/wait_record.hpp"

#include <fmt/format.h>

#include <cstring>

namespace symm::gemm {

std::string describe(const GemmWaitRecord& r) {
  if (r.claimed != 2) return {};
  const std::string head = fmt::format("symm gemm: block {} timed out after {} ms (SYMM_WAIT_TIMEOUT_MS) ",
                                       r.block, r.waited_ns / 1'000'000);
  switch (GemmWaitSite(r.site)) {
    case GemmWaitSite::stage_release:
      return head + fmt::format("waiting for its consumers to hand back pipeline stage {}: a consumer "
                                "warpgroup stopped reading, or a TMA load into that stage never completed",
                                r.stage);
    case GemmWaitSite::partial_sums:
      return head + fmt::format("waiting for the partial sums of tile {}: {} of {} arrived (a block holding "
                                "another part of its K range never published it)",
                                r.tile, r.seen, r.expected);
  }
  return head + fmt::format("at an unknown wait (site {})", r.site);
}

GemmWaitRecord read_wait_record(const void* mapped) {
  GemmWaitRecord r;
  std::memcpy(&r, const_cast<const void*>(static_cast<const volatile void*>(mapped)), sizeof r);
  return r;
}

}  // namespace symm::gemm
