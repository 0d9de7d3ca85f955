#include "link.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>

#include <fmt/format.h>

#include "symm/common/error.hpp"
#include "symm/host/team.hpp"

namespace symm::detail {
namespace {

std::atomic<int> g_lost_peer{-1};

constexpr std::size_t kReadChunk = 256 * 1024;
constexpr std::size_t kControlBytes = CMSG_SPACE(sizeof(int) * kMaxFdsPerMessage);

[[noreturn]] void system_error(const char* call, int peer) {
  throw Error(fmt::format("bootstrap {} to rank {} failed: {}", call, peer, system_error_text(errno)));
}

}  // namespace

Link::Link(int peer_rank, UniqueFd socket) : peer_(peer_rank), socket_(std::move(socket)) {
  const int flags = ::fcntl(socket_.get(), F_GETFL);
  if (flags < 0 || ::fcntl(socket_.get(), F_SETFL, flags | O_NONBLOCK) < 0) {
    system_error("fcntl(O_NONBLOCK)", peer_);
  }
}

void Link::queue(std::vector<std::byte> head, std::shared_ptr<const std::vector<std::byte>> body,
                 std::vector<int> fds) {
  if (head.empty() || fds.size() > kMaxFdsPerMessage) {
    throw Error("internal: a bootstrap message needs a header and at most 253 descriptors");
  }
  outbox_.push_back(Message{std::move(head), std::move(body), std::move(fds)});
}

bool Link::write_some() {
  while (!outbox_.empty()) {
    Message& message = outbox_.front();
    iovec parts[2];
    int count = 0;
    std::size_t offset = message.sent;
    if (offset < message.head.size()) {
      parts[count++] = {message.head.data() + offset, message.head.size() - offset};
      offset = 0;
    } else {
      offset -= message.head.size();
    }
    if (message.body && offset < message.body->size()) {
      parts[count++] = {const_cast<std::byte*>(message.body->data()) + offset,
                        message.body->size() - offset};
    }
    msghdr header{};
    header.msg_iov = parts;
    header.msg_iovlen = static_cast<std::size_t>(count);
    alignas(cmsghdr) char control[kControlBytes];
    if (message.sent == 0 && !message.fds.empty()) {
      const std::size_t fd_bytes = sizeof(int) * message.fds.size();
      header.msg_control = control;
      header.msg_controllen = CMSG_SPACE(fd_bytes);
      cmsghdr* rights = CMSG_FIRSTHDR(&header);
      rights->cmsg_level = SOL_SOCKET;
      rights->cmsg_type = SCM_RIGHTS;
      rights->cmsg_len = CMSG_LEN(fd_bytes);
      std::memcpy(CMSG_DATA(rights), message.fds.data(), fd_bytes);
    }
    const ssize_t sent = ::sendmsg(socket_.get(), &header, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      if (errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN) {
        closed_ = true;
        return false;
      }
      system_error("sendmsg", peer_);
    }
    message.sent += static_cast<std::size_t>(sent);
    if (message.sent == message.size()) outbox_.pop_front();
  }
  return true;
}

void Link::read_some() {
  while (!closed_) {
    if (inbox_head_ > 0 && inbox_head_ >= inbox_.size() / 2) {
      inbox_.erase(inbox_.begin(), inbox_.begin() + static_cast<std::ptrdiff_t>(inbox_head_));
      inbox_head_ = 0;
    }
    const std::size_t old_size = inbox_.size();
    inbox_.resize(old_size + kReadChunk);
    iovec part{inbox_.data() + old_size, kReadChunk};
    alignas(cmsghdr) char control[kControlBytes];
    msghdr header{};
    header.msg_iov = &part;
    header.msg_iovlen = 1;
    header.msg_control = control;
    header.msg_controllen = sizeof control;
    const ssize_t received = ::recvmsg(socket_.get(), &header, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    inbox_.resize(old_size + static_cast<std::size_t>(std::max<ssize_t>(received, 0)));
    if (received < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      if (errno == ECONNRESET) {
        closed_ = true;
        return;
      }
      system_error("recvmsg", peer_);
    }
    for (cmsghdr* c = CMSG_FIRSTHDR(&header); c != nullptr; c = CMSG_NXTHDR(&header, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const std::size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < n; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        fds_.emplace_back(fd);
      }
    }
    // The sender never sends more than the control buffer holds (kMaxFdsPerMessage), so a
    // truncated one means this process could not take them: the kernel drops what does
    // not fit under its descriptor limit.
    if (header.msg_flags & MSG_CTRUNC) {
      throw Error(fmt::format("file descriptors from rank {} were lost on receipt: {}", peer_,
                              system_error_text(EMFILE)));
    }
    if (received == 0) {
      closed_ = true;
      return;
    }
    if (static_cast<std::size_t>(received) < kReadChunk) return;  // drained for now
  }
}

std::span<const std::byte> Link::buffered() const {
  return {inbox_.data() + inbox_head_, inbox_.size() - inbox_head_};
}

void Link::consume(std::size_t bytes) {
  inbox_head_ += std::min(bytes, inbox_.size() - inbox_head_);
  if (inbox_head_ == inbox_.size()) {
    inbox_.clear();
    inbox_head_ = 0;
  }
}

UniqueFd Link::take_fd() {
  if (fds_.empty()) throw Error(fmt::format("rank {} sent no file descriptor where one was due", peer_));
  UniqueFd fd = std::move(fds_.front());
  fds_.pop_front();
  return fd;
}

int lost_peer() { return g_lost_peer.load(); }

std::string describe_ranks(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0) text += i + 1 == ranks.size() ? " and " : ", ";
    text += std::to_string(ranks[i]);
  }
  return text;
}

void pump(std::span<Link* const> links, const std::function<bool(const Link&)>& done,
          const WaitContext& context) {
  std::vector<pollfd> polled;
  std::vector<Link*> active;
  for (;;) {
    polled.clear();
    active.clear();
    for (Link* link : links) {
      if (!link->has_output() && done(*link)) continue;
      if (link->closed()) {
        int none = -1;
        g_lost_peer.compare_exchange_strong(none, link->peer());
        const bool hub = link->peer() == 0 && context.my_rank != 0;
        throw PeerLostError(fmt::format(
            "{}: rank {}{} closed its bootstrap connection: it exited or crashed{}", context.what,
            link->peer(), hub ? " (the hub)" : "", hub ? " (see its messages)" : ""));
      }
      active.push_back(link);
      polled.push_back({link->fd(), static_cast<short>(POLLIN | (link->has_output() ? POLLOUT : 0)), 0});
    }
    if (active.empty()) return;

    const auto now = Clock::now();
    if (now >= context.deadline) {
      std::vector<int> late;
      for (Link* link : active) late.push_back(link->peer());
      std::sort(late.begin(), late.end());
      const bool only_hub = late == std::vector<int>{0} && context.my_rank != 0;
      throw TimeoutError(fmt::format(
          "{} timed out after {} ms at rank {}/{}: no answer from {}{}. A rank may be stuck, "
          "slower than SYMM_BOOTSTRAP_TIMEOUT_MS allows, or calling a different collective.",
          context.what, context.timeout.count(), context.my_rank, context.world,
          describe_ranks(late),
          only_hub ? " (the hub, which waits for every rank: its own message names the rank "
                     "it waits for)"
                   : ""));
    }
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(context.deadline - now).count();
    const int ready = ::poll(polled.data(), polled.size(), static_cast<int>(std::min<long long>(left, INT_MAX)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("{}: poll failed: {}", context.what, system_error_text(errno)));
    }
    for (std::size_t i = 0; i < polled.size(); ++i) {
      if (polled[i].revents & POLLOUT) active[i]->write_some();
      if (polled[i].revents & (POLLIN | POLLHUP | POLLERR)) active[i]->read_some();
    }
  }
}

}  // namespace symm::detail
