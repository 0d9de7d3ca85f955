#pragma once
// symm::Team over Unix stream sockets arranged as a star around rank 0 (the hub):
// every collective is a gather to rank 0 followed by a scatter back.
#include <chrono>
#include <memory>
#include <vector>

#include "symm/host/team.hpp"
#include "symm/host/unique_fd.hpp"

namespace symm::detail {

// sockets[r] is this rank's connection to rank r: rank 0 holds one to every other
// rank, every other rank holds only sockets[0]. The timeout applies to each
// collective; when it is zero, SYMM_BOOTSTRAP_TIMEOUT_MS or the default is used.
std::unique_ptr<Team> make_socket_team(int rank, int world, std::vector<UniqueFd> sockets,
                                       std::chrono::milliseconds timeout = {});

}  // namespace symm::detail
