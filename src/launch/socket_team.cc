#include "socket_team.hpp"

#include <fcntl.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "symm/common/error.hpp"
#include "symm/host/settings.hpp"
#include "limits.hpp"
#include "link.hpp"

namespace symm::detail {
namespace {

constexpr std::chrono::milliseconds kHubHeadStart{2000};

enum class Op : std::uint32_t { barrier = 1, broadcast = 2, all_gather = 3, all_gather_fds = 4 };

// Every message starts with a frame. The hub checks that each rank's frame describes
// the same call as its own, so ranks that disagree get an error instead of garbage.
struct Frame {
  Op op;
  std::int32_t root;      // broadcast only
  std::uint64_t seq;      // collective number, counted from 0 on every rank
  std::uint64_t count;    // the caller's size in bytes, or descriptors in this message
  std::uint64_t payload;  // bytes following the frame
};
static_assert(sizeof(Frame) == 32);

std::string describe(const Frame& call) {
  switch (call.op) {
    case Op::barrier: return fmt::format("barrier (collective #{})", call.seq);
    case Op::broadcast:
      return fmt::format("broadcast(root {}, {} bytes) (collective #{})", call.root, call.count, call.seq);
    case Op::all_gather: return fmt::format("all_gather({} bytes) (collective #{})", call.count, call.seq);
    case Op::all_gather_fds: return fmt::format("all_gather_fds (collective #{})", call.seq);
  }
  return fmt::format("unknown collective {} (#{})", static_cast<std::uint32_t>(call.op), call.seq);
}

std::vector<std::byte> encode(const Frame& frame) {
  std::vector<std::byte> bytes(sizeof frame);
  std::memcpy(bytes.data(), &frame, sizeof frame);
  return bytes;
}

UniqueFd duplicate(int fd) {
  UniqueFd copy(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  if (!copy.valid()) throw Error(fmt::format("all_gather_fds: cannot duplicate descriptor {}: {}", fd, system_error_text(errno)));
  return copy;
}

class SocketTeam final : public Team {
 public:
  SocketTeam(int rank, int world, std::vector<UniqueFd> sockets, std::chrono::milliseconds timeout)
      : rank_(rank), world_(world), timeout_(timeout) {
    if (world < 1 || world > kMaxRanks || rank < 0 || rank >= world ||
        sockets.size() != static_cast<std::size_t>(world)) {
      throw Error(fmt::format("internal: bad bootstrap team shape (rank {}, world {}, {} sockets)",
                              rank, world, sockets.size()));
    }
    for (int peer = 0; peer < world; ++peer) {
      const bool wanted = rank == 0 ? peer != 0 : peer == 0;
      if (wanted != sockets[peer].valid()) {
        throw Error(fmt::format("internal: rank {} {} a bootstrap socket to rank {}", rank,
                                wanted ? "lacks" : "should not have", peer));
      }
      if (wanted) links_.push_back(std::make_unique<Link>(peer, std::move(sockets[peer])));
    }
    for (auto& link : links_) peers_.push_back(link.get());
  }

  int rank() const override { return rank_; }
  int world() const override { return world_; }
  void barrier() override {
    run(Frame{Op::barrier, 0, 0, 0, 0}, [&](const Frame& call, const WaitContext& wait) {
      if (rank_ == 0) {
        gather(call, wait, [](int) { return std::uint64_t{0}; });
        scatter(call, wait, {}, [](int) { return false; });
      } else {
        send_up(call, {}, -1);
        receive_down(call, wait, 0);
      }
    });
  }

  void broadcast(std::span<std::byte> data, int root) override {
    if (root < 0 || root >= world_) {
      throw Error(fmt::format("broadcast: root {} is not a rank of this team (world {})", root, world_));
    }
    run(Frame{Op::broadcast, root, 0, data.size(), 0}, [&](const Frame& call, const WaitContext& wait) {
      if (rank_ == 0) {
        auto parts = gather(call, wait, [&](int peer) { return peer == root ? data.size() : 0; });
        if (root != 0) std::copy(parts[root].begin(), parts[root].end(), data.begin());
        scatter(call, wait, std::make_shared<const std::vector<std::byte>>(data.begin(), data.end()),
                [&](int peer) { return peer != root; });
      } else {
        send_up(call, rank_ == root ? data : std::span<const std::byte>{}, -1);
        auto bytes = receive_down(call, wait, rank_ == root ? 0 : data.size());
        std::copy(bytes.begin(), bytes.end(), data.begin());
      }
    });
  }

  std::vector<std::byte> all_gather(std::span<const std::byte> mine) override {
    std::vector<std::byte> result;
    run(Frame{Op::all_gather, 0, 0, mine.size(), 0}, [&](const Frame& call, const WaitContext& wait) {
      const std::size_t total = mine.size() * static_cast<std::size_t>(world_);
      if (rank_ == 0) {
        auto parts = gather(call, wait, [&](int) { return mine.size(); });
        auto all = std::make_shared<std::vector<std::byte>>(mine.begin(), mine.end());
        all->reserve(total);
        for (int peer = 1; peer < world_; ++peer) all->insert(all->end(), parts[peer].begin(), parts[peer].end());
        scatter(call, wait, all, [](int) { return true; });
        result = *all;
      } else {
        send_up(call, mine, -1);
        result = receive_down(call, wait, total);
      }
    });
    return result;
  }

  std::vector<UniqueFd> all_gather_fds(int fd) override {
    std::vector<UniqueFd> result(static_cast<std::size_t>(world_));
    run(Frame{Op::all_gather_fds, 0, 0, 1, 0}, [&](const Frame& call, const WaitContext& wait) {
      if (rank_ == 0) {
        gather(call, wait, [](int) { return std::uint64_t{0}; });
        result[0] = duplicate(fd);
        for (Link* link : peers_) result[link->peer()] = link->take_fd();
        send_fds_down(call, wait, result);
      } else {
        send_up(call, {}, fd);
        receive_fds_down(call, wait, result);
      }
    });
    return result;
  }

 private:
  // Numbers the collective, bounds it by the timeout, and leaves the team unusable when
  // it fails (a half-finished collective leaves messages in flight).
  template <class Body>
  void run(Frame call, Body&& body) {
    if (!broken_.empty()) {
      throw Error(fmt::format("bootstrap team unusable after an earlier failure ({})", broken_));
    }
    call.seq = seq_++;
    // The hub's wait ends first: it knows which rank is missing, so its message (and
    // its exit) names the culprit before the others give up on the hub.
    const auto waited = rank_ == 0 ? timeout_ : timeout_ + std::min(timeout_, kHubHeadStart);
    WaitContext wait{describe(call), rank_, world_, waited, Clock::now() + waited};
    try {
      body(call, wait);
    } catch (const std::exception& e) {
      broken_ = e.what();
      throw;
    }
  }

  // Has link's next message arrived whole? Throws when its frame describes another call.
  bool message_ready(const Link& link, const Frame& expected, std::uint64_t expected_payload,
                     bool carries_fds) const {
    const auto bytes = link.buffered();
    if (bytes.size() < sizeof(Frame)) return false;
    Frame got;
    std::memcpy(&got, bytes.data(), sizeof got);
    const bool same_call = got.op == expected.op && got.seq == expected.seq &&
                           got.root == expected.root && (carries_fds || got.count == expected.count);
    const bool fds_ok = !carries_fds || (got.count >= 1 && got.count <= kMaxFdsPerMessage);
    if (!same_call || !fds_ok || got.payload != expected_payload) {
      const int other = link.peer();
      throw Error(fmt::format(
          "collectives disagree: rank {} called {} while rank {} called {}; every rank must call "
          "the same collectives in the same order, with the same root and size",
          other, describe(got), rank_, describe(expected)));
    }
    return bytes.size() >= sizeof(Frame) + got.payload &&
           (!carries_fds || link.fds_buffered() >= got.count);
  }

  static Frame take_frame(Link& link, std::vector<std::byte>* payload) {
    Frame frame;
    std::memcpy(&frame, link.buffered().data(), sizeof frame);
    link.consume(sizeof frame);
    if (payload) {
      auto bytes = link.buffered().first(frame.payload);
      payload->assign(bytes.begin(), bytes.end());
    }
    link.consume(frame.payload);
    return frame;
  }

  // Hub: waits for every rank's message; returns each rank's payload (index = rank).
  std::vector<std::vector<std::byte>> gather(const Frame& call, const WaitContext& wait,
                                             const std::function<std::uint64_t(int)>& payload_of) {
    const bool fds = call.op == Op::all_gather_fds;
    pump(peers_, [&](const Link& link) { return message_ready(link, call, payload_of(link.peer()), fds); }, wait);
    std::vector<std::vector<std::byte>> parts(static_cast<std::size_t>(world_));
    for (Link* link : peers_) take_frame(*link, &parts[link->peer()]);
    return parts;
  }

  // Hub: sends body (when with_body(peer)) to every rank and waits until all is sent.
  void scatter(const Frame& call, const WaitContext& wait,
               std::shared_ptr<const std::vector<std::byte>> body,
               const std::function<bool(int)>& with_body) {
    for (Link* link : peers_) {
      Frame down = call;
      const bool send_body = body && with_body(link->peer());
      down.payload = send_body ? body->size() : 0;
      link->queue(encode(down), send_body ? body : nullptr);
    }
    pump(peers_, [](const Link&) { return true; }, wait);
  }

  void send_fds_down(const Frame& call, const WaitContext& wait, const std::vector<UniqueFd>& fds) {
    for (Link* link : peers_) {
      for (std::size_t first = 0; first < fds.size(); first += kMaxFdsPerMessage) {
        Frame down = call;
        down.count = std::min(kMaxFdsPerMessage, fds.size() - first);
        std::vector<int> raw;
        for (std::size_t i = first; i < first + down.count; ++i) raw.push_back(fds[i].get());
        link->queue(encode(down), nullptr, std::move(raw));
      }
    }
    pump(peers_, [](const Link&) { return true; }, wait);
  }

  void send_up(const Frame& call, std::span<const std::byte> payload, int fd) {
    Frame up = call;
    up.payload = payload.size();
    auto body = payload.empty() ? nullptr
                                : std::make_shared<const std::vector<std::byte>>(payload.begin(), payload.end());
    peers_[0]->queue(encode(up), std::move(body), fd >= 0 ? std::vector<int>{fd} : std::vector<int>{});
  }

  std::vector<std::byte> receive_down(const Frame& call, const WaitContext& wait, std::uint64_t payload) {
    pump(peers_, [&](const Link& link) { return message_ready(link, call, payload, false); }, wait);
    std::vector<std::byte> bytes;
    take_frame(*peers_[0], &bytes);
    return bytes;
  }

  void receive_fds_down(const Frame& call, const WaitContext& wait, std::vector<UniqueFd>& result) {
    std::size_t received = 0;
    while (received < result.size()) {
      pump(peers_, [&](const Link& link) { return message_ready(link, call, 0, true); }, wait);
      const Frame down = take_frame(*peers_[0], nullptr);
      if (down.count > result.size() - received) {
        throw Error(fmt::format("all_gather_fds: rank 0 sent {} descriptors, more than the {} ranks",
                                received + down.count, world_));
      }
      for (std::uint64_t i = 0; i < down.count; ++i) result[received++] = peers_[0]->take_fd();
    }
  }

  int rank_;
  int world_;
  std::chrono::milliseconds timeout_;
  std::vector<std::unique_ptr<Link>> links_;
  std::vector<Link*> peers_;  // rank 0: every other rank in order; others: the hub
  std::uint64_t seq_ = 0;
  std::string broken_;
};

}  // namespace

std::unique_ptr<Team> make_socket_team(int rank, int world, std::vector<UniqueFd> sockets,
                                       std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) timeout = settings::bootstrap_timeout();
  return std::make_unique<SocketTeam>(rank, world, std::move(sockets), timeout);
}

}  // namespace symm::detail
