#include "rank_runner.hpp"

#include <cstdlib>
#include <exception>
#include <string>

#include <fmt/format.h>

#include "link.hpp"
#include "symm/host/log.hpp"

namespace symm::detail {

void enter_rank(int rank, int world, int local_rank) {
  ::setenv("SYMM_RANK", std::to_string(rank).c_str(), 1);
  ::setenv("SYMM_WORLD", std::to_string(world).c_str(), 1);
  ::setenv("SYMM_LOCAL_RANK", std::to_string(local_rank).c_str(), 1);
  // NVLink multicast can put a host's GPUs out of service (docs/launch-model.md): keep
  // every library that could use it away from it, unless the user decided otherwise.
  ::setenv("NCCL_NVLS_ENABLE", "0", 0);
  ::setenv("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1", 0);
  ::setenv("NVSHMEM_DISABLE_NVLS", "1", 0);
  log::set_rank(rank, world);
}

RankOutcome run_rank_main(Team& team, const std::function<int(Team&)>& rank_main) {
  RankOutcome outcome;
  try {
    outcome.code = rank_main(team);
  } catch (const std::exception& e) {
    outcome.code = 1;
    outcome.error = e.what();
  } catch (...) {
    outcome.code = 1;
    outcome.error = "an exception of unknown type escaped the rank's main function";
  }
  if (outcome.code < 0 || outcome.code > 255) {  // an exit status keeps only 8 bits: 256 would pass
    log::error(fmt::format("the rank's main function returned {}, which is not an exit status "
                           "(0..255); exiting with 1",
                           outcome.code));
    outcome.code = 1;
  }
  if (!outcome.error.empty()) log::error(outcome.error);
  outcome.lost_peer = outcome.code != 0 ? lost_peer() : -1;
  return outcome;
}

}  // namespace symm::detail
