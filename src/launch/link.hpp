#pragma once
// One end of a bootstrap connection to another rank, and the poll() loop that moves
// data on several of them at once with a deadline.
//
// A Link is a non-blocking Unix stream socket with an output queue and an input
// buffer. File descriptors travel with the bytes they were sent with (SCM_RIGHTS) and
// are collected in arrival order, whichever read picks them up, so partial reads and
// writes never separate a descriptor from its message.
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "symm/host/unique_fd.hpp"

namespace symm::detail {

using Clock = std::chrono::steady_clock;

// The kernel's limit on descriptors in one SCM_RIGHTS message (SCM_MAX_FD).
inline constexpr std::size_t kMaxFdsPerMessage = 253;

class Link {
 public:
  Link(int peer_rank, UniqueFd socket);

  int peer() const { return peer_; }
  int fd() const { return socket_.get(); }

  // Queues head followed by body; fds (at most kMaxFdsPerMessage) travel with the first
  // byte and must stay open until the message is sent.
  void queue(std::vector<std::byte> head, std::shared_ptr<const std::vector<std::byte>> body,
             std::vector<int> fds = {});
  bool has_output() const { return !outbox_.empty(); }
  // Sends what the socket accepts now; returns false when the peer has gone away.
  bool write_some();

  // Receives what is available now; end of stream marks the link closed.
  void read_some();
  bool closed() const { return closed_; }

  std::span<const std::byte> buffered() const;
  void consume(std::size_t bytes);
  std::size_t fds_buffered() const { return fds_.size(); }
  UniqueFd take_fd();

 private:
  struct Message {
    std::vector<std::byte> head;
    std::shared_ptr<const std::vector<std::byte>> body;
    std::vector<int> fds;
    std::size_t sent = 0;
    std::size_t size() const { return head.size() + (body ? body->size() : 0); }
  };

  int peer_;
  UniqueFd socket_;
  std::deque<Message> outbox_;
  std::vector<std::byte> inbox_;
  std::size_t inbox_head_ = 0;
  std::deque<UniqueFd> fds_;
  bool closed_ = false;
};

// What a pump is waiting for, for its error messages.
struct WaitContext {
  std::string what;  // e.g. "barrier (collective #3)"
  int my_rank = 0;
  int world = 1;
  std::chrono::milliseconds timeout{0};
  Clock::time_point deadline;
};

// Moves data on links until done(link) holds for every one of them. Throws
// TimeoutError naming the ranks not done at the deadline, PeerLostError when a link
// that is not done closes; done may itself throw (e.g. on a malformed message).
void pump(std::span<Link* const> links, const std::function<bool(const Link&)>& done,
          const WaitContext& context);

// The first rank whose connection this process saw close in the middle of a
// collective, or -1: a rank that fails after that is a consequence, not the cause.
int lost_peer();

// "rank 3", "ranks 1, 2 and 5"
std::string describe_ranks(const std::vector<int>& ranks);

}  // namespace symm::detail
