#pragma once
// The bootstrap channel among the ranks of one job (no GPU needed).
//
// Self-spawned ranks inherit socket pairs from the supervisor; ranks joined under an
// external launcher (torchrun, mpirun, srun) meet on a Unix socket named from the job's
// identity in a private directory, with peer credentials checked. Rank 0 is the hub:
// every collective is a gather to rank 0 and a scatter back. Every call is bounded by
// a timeout and throws symm::TimeoutError naming the rank that did not answer, or
// symm::PeerLostError naming a rank that went away. Calls that disagree across ranks
// (different collective, root or size) throw symm::Error naming both sides. After a
// collective has thrown, the team is unusable: every later call throws.
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "symm/common/error.hpp"
#include "symm/host/unique_fd.hpp"

namespace symm {

// Thrown by a collective when a peer closed its bootstrap connection: it crashed or
// exited early. (A rank that fails this way is reported by the supervisor as a
// consequence of the peer's failure, not as its cause.)
class PeerLostError : public Error {
 public:
  using Error::Error;
};

class Team {
 public:
  virtual ~Team() = default;

  virtual int rank() const = 0;
  virtual int world() const = 0;

  // Every rank calls these in the same order with the same sizes.
  virtual void barrier() = 0;
  virtual void broadcast(std::span<std::byte> data, int root) = 0;
  // Returns world * mine.size() bytes, rank r's contribution at offset r * mine.size().
  virtual std::vector<std::byte> all_gather(std::span<const std::byte> mine) = 0;
  // Passes one file descriptor per rank (SCM_RIGHTS); result[r] is a local duplicate of
  // rank r's descriptor (result[rank()] duplicates fd itself).
  virtual std::vector<UniqueFd> all_gather_fds(int fd) = 0;
};

}  // namespace symm
