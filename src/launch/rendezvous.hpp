#pragma once
// The rendezvous of ranks started by an external launcher: rank 0 listens on a Unix
// socket in a private (0700) directory named from the job's identity; every other rank
// connects, and each side checks that the other belongs to the same job (same uid by
// SO_PEERCRED, same launcher job and the claimed rank in the environment the process
// was started with). No TCP, no fixed port: two jobs never meet, and no process
// outside the job can join it (and so can never receive the heap's descriptors).
#include <chrono>
#include <string>
#include <vector>

#include "env.hpp"
#include "launcher_env.hpp"
#include "symm/host/unique_fd.hpp"

namespace symm::detail {

struct RendezvousPlace {
  std::string directory;  // <runtime dir>/symm-<uid>/<hash of the job identity>
  std::string socket;     // <directory>/hub.sock
};

// The runtime dir is $XDG_RUNTIME_DIR when it is an existing directory, else /tmp.
RendezvousPlace rendezvous_place(const std::string& identity, const EnvLookup& env);

// Rank 0: admits every other rank of the job once; returns sockets indexed by rank
// (sockets[0] empty). Removes the socket and its directory before returning.
std::vector<UniqueFd> rendezvous_host(const LauncherInfo& me, const RendezvousPlace& place,
                                      std::chrono::milliseconds timeout);

// Other ranks: connects to rank 0 (retrying while it is not yet listening) and waits
// to be admitted. Throws symm::Error with rank 0's reason when refused.
UniqueFd rendezvous_join(const LauncherInfo& me, const RendezvousPlace& place,
                         std::chrono::milliseconds timeout);

// Why the process at the other end of a connected Unix socket is not a member of the
// job `me` belongs to (as rank expected_rank when >= 0); empty when it is. Throws
// symm::Error when this process cannot tell for want of resources (no descriptor left).
std::string membership_problem(int socket, const LauncherInfo& me, int expected_rank);

}  // namespace symm::detail
