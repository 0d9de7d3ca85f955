#pragma once
// What every rank does around the user's rank_main, in both launch modes.
#include <functional>
#include <string>

#include "symm/host/team.hpp"

namespace symm::detail {

struct RankOutcome {
  int code = 0;
  std::string error;       // the message of the exception that escaped rank_main
  int lost_peer = -1;  // the rank failed after this peer went away (a consequence)

  bool peer_lost() const { return lost_peer >= 0; }
};

// Sets SYMM_RANK, SYMM_WORLD, SYMM_LOCAL_RANK, the NVLink-multicast switches (unless
// the user set them) and the "[rank/world]" log prefix.
void enter_rank(int rank, int world, int local_rank);

// Runs rank_main; an exception that escapes it is logged and gives code 1.
RankOutcome run_rank_main(Team& team, const std::function<int(Team&)>& rank_main);

}  // namespace symm::detail
