#include "rendezvous.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "link.hpp"
#include "symm/common/error.hpp"
#include "symm/host/log.hpp"

namespace symm::detail {
namespace {

constexpr std::uint32_t kMagic = 0x4d4d5953;  // "SYMM"
constexpr std::uint32_t kVersion = 1;

struct Hello {
  std::uint32_t magic;
  std::uint32_t version;
  std::int32_t rank;
  std::int32_t world;
  std::uint64_t identity_hash;
};

struct Reply {
  std::uint32_t magic;
  std::uint32_t admitted;
  std::uint32_t reason_length;
  std::uint32_t reserved;
};

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ull;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

int milliseconds_left(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, INT_MAX));
}

// Creates path as a 0700 directory, or checks that the existing one is ours and
// private: a directory someone else made could let them watch or replace the socket.
void make_private_directory(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    throw Error(fmt::format("cannot create the rendezvous directory {}: {}", path, system_error_text(errno)));
  }
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) {
    throw Error(fmt::format("cannot inspect the rendezvous directory {}: {}", path, system_error_text(errno)));
  }
  std::string problem;
  if (!S_ISDIR(info.st_mode)) {
    problem = "it is not a directory (or is a symbolic link)";
  } else if (info.st_uid != ::geteuid()) {
    problem = fmt::format("it belongs to uid {}, not to this user (uid {})", info.st_uid, ::geteuid());
  } else if ((info.st_mode & 0077) != 0) {
    problem = fmt::format("other users may access it (mode {:04o}, expected 0700)", info.st_mode & 07777);
  }
  if (!problem.empty()) {
    throw Error(fmt::format("refusing to use {} for the rendezvous: {}; remove it and retry", path, problem));
  }
}

sockaddr_un socket_address(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) {
    throw Error(fmt::format("the rendezvous socket path {} is longer than a Unix socket allows ({} "
                            "bytes); point XDG_RUNTIME_DIR to a shorter directory",
                            path, sizeof address.sun_path - 1));
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

UniqueFd unix_socket() {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) throw Error(fmt::format("cannot create a Unix socket: {}", system_error_text(errno)));
  return fd;
}

// Exact transfers of the small handshake messages on a non-blocking socket. read_exact
// returns false when the other side closes first.
bool transfer_exact(int fd, std::byte* data, std::size_t size, bool reading, Clock::time_point deadline) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = reading ? ::recv(fd, data + done, size - done, MSG_DONTWAIT)
                              : ::send(fd, data + done, size - done, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n == 0 && reading) return false;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      if (errno == EPIPE || errno == ECONNRESET) return false;
      throw Error(fmt::format("rendezvous {} failed: {}", reading ? "recv" : "send", system_error_text(errno)));
    }
    pollfd one{fd, static_cast<short>(reading ? POLLIN : POLLOUT), 0};
    const int wait = milliseconds_left(deadline);
    if (wait == 0) throw TimeoutError("the rendezvous handshake timed out");
    if (::poll(&one, 1, wait) < 0 && errno != EINTR) {
      throw Error(fmt::format("rendezvous poll failed: {}", system_error_text(errno)));
    }
  }
  return true;
}

template <class T>
bool read_struct(int fd, T& value, Clock::time_point deadline) {
  return transfer_exact(fd, reinterpret_cast<std::byte*>(&value), sizeof value, true, deadline);
}

bool send_reply(int fd, bool admitted, const std::string& reason, Clock::time_point deadline) {
  Reply reply{kMagic, admitted ? 1u : 0u, static_cast<std::uint32_t>(reason.size()), 0};
  std::vector<std::byte> bytes(sizeof reply + reason.size());
  std::memcpy(bytes.data(), &reply, sizeof reply);
  std::memcpy(bytes.data() + sizeof reply, reason.data(), reason.size());
  return transfer_exact(fd, bytes.data(), bytes.size(), false, deadline);
}

// Binds the hub's socket, replacing a stale one left by a job that died, but never
// one that a live process still listens on.
UniqueFd listen_at(const std::string& path, int backlog, const LauncherInfo& me) {
  const sockaddr_un address = socket_address(path);
  UniqueFd listener = unix_socket();
  auto bind_socket = [&] {
    return ::bind(listener.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  };
  if (!bind_socket()) {
    if (errno != EADDRINUSE) throw Error(fmt::format("cannot bind {}: {}", path, system_error_text(errno)));
    UniqueFd probe = unix_socket();
    const bool live = ::connect(probe.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 ||
                      errno == EAGAIN;
    if (live) {
      throw Error(fmt::format("another process already listens at {}: a job with this job's identity "
                              "({} job {}) is running. Two jobs need different launcher job ids "
                              "(or set SYMM_JOB_ID)",
                              path, me.name, me.job));
    }
    ::unlink(path.c_str());
    if (!bind_socket()) throw Error(fmt::format("cannot bind {}: {}", path, system_error_text(errno)));
  }
  if (::listen(listener.get(), std::min(backlog, SOMAXCONN)) != 0) {
    throw Error(fmt::format("cannot listen at {}: {}", path, system_error_text(errno)));
  }
  return listener;
}

// Removes the socket (once this hub bound it: never another job's live one) and the job's
// directory (only while empty) when the hub is done with them.
struct PlaceCleanup {
  const RendezvousPlace& place;
  bool bound = false;
  ~PlaceCleanup() {
    if (bound) ::unlink(place.socket.c_str());
    ::rmdir(place.directory.c_str());
  }
};

// A connection accepted by the hub, until its hello has arrived.
struct Pending {
  UniqueFd socket;
  Hello hello{};
  std::size_t received = 0;
};

}  // namespace

RendezvousPlace rendezvous_place(const std::string& identity, const EnvLookup& env) {
  std::string base = "/tmp";
  if (auto runtime = env("XDG_RUNTIME_DIR"); runtime && !runtime->empty() && runtime->front() == '/') {
    struct stat info;
    if (::stat(runtime->c_str(), &info) == 0 && S_ISDIR(info.st_mode)) base = *runtime;
  }
  RendezvousPlace place;
  place.directory = fmt::format("{}/symm-{}/{:016x}", base, ::geteuid(), fnv1a(identity));
  place.socket = place.directory + "/hub.sock";
  return place;
}

std::string membership_problem(int socket, const LauncherInfo& me, int expected_rank) {
  ucred peer{};
  socklen_t length = sizeof peer;
  if (::getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) {
    return fmt::format("its credentials cannot be read ({})", system_error_text(errno));
  }
  if (peer.uid != ::geteuid()) {
    return fmt::format("pid {} runs as uid {}, not as this job's uid {}", peer.pid, peer.uid, ::geteuid());
  }
  std::optional<LauncherInfo> theirs;
  try {
    theirs = detect_launcher(env_lookup(read_process_environ(peer.pid)));
  } catch (const OutOfResourcesError& e) {
    // This process's own want, not the other's fault: refusing it would leave the job
    // waiting for a rank that did join, and the timeout would then blame that rank.
    throw Error(fmt::format("rendezvous: rank {} cannot check pid {}'s launcher environment: {}", me.rank,
                            peer.pid, e.what()));
  } catch (const Error& e) {
    return fmt::format("pid {}'s launcher environment cannot be checked ({})", peer.pid, e.what());
  }
  if (!theirs) return fmt::format("pid {} was not started by a launcher", peer.pid);
  if (theirs->identity != me.identity) {
    return fmt::format("pid {} belongs to another job ({} job {})", peer.pid, theirs->name, theirs->job);
  }
  if (expected_rank >= 0 && theirs->rank != expected_rank) {
    return fmt::format("pid {} is rank {} of this job, but claims to be rank {}", peer.pid, theirs->rank,
                       expected_rank);
  }
  return {};
}

std::vector<UniqueFd> rendezvous_host(const LauncherInfo& me, const RendezvousPlace& place,
                                      std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  make_private_directory(place.directory.substr(0, place.directory.rfind('/')));
  make_private_directory(place.directory);
  PlaceCleanup cleanup{place};
  UniqueFd listener = listen_at(place.socket, me.world, me);
  cleanup.bound = true;
  log::debug(fmt::format("rendezvous: listening at {}", place.socket));

  std::vector<UniqueFd> sockets(static_cast<std::size_t>(me.world));
  int admitted = 1;
  std::vector<Pending> pending;
  const std::size_t max_pending = 2 * static_cast<std::size_t>(me.world) + 8;

  // Judges a complete hello: admits the rank or tells the process why not.
  auto judge = [&](Pending& connection) {
    const Hello& hello = connection.hello;
    std::string problem;
    if (hello.magic != kMagic || hello.version != kVersion) {
      problem = "it does not speak this version of symm's rendezvous protocol";
    } else if (hello.world != me.world || hello.identity_hash != fnv1a(me.identity)) {
      problem = fmt::format("it belongs to another job (a job of {} ranks)", hello.world);
    } else if (hello.rank < 1 || hello.rank >= me.world) {
      problem = fmt::format("it claims rank {}, which rank 0 cannot admit", hello.rank);
    } else if (sockets[hello.rank].valid()) {
      problem = fmt::format("rank {} has already joined", hello.rank);
    } else {
      problem = membership_problem(connection.socket.get(), me, hello.rank);
    }
    if (!problem.empty()) {
      log::warn(fmt::format("rendezvous: refused a connection: {}", problem));
      try {  // best effort: the refused process may already be gone
        send_reply(connection.socket.get(), false, problem, Clock::now() + std::chrono::milliseconds(200));
      } catch (const Error&) {
      }
      return;
    }
    bool answered = false;
    try {
      answered = send_reply(connection.socket.get(), true, {}, deadline);
    } catch (const TimeoutError&) {
      throw TimeoutError(fmt::format("rank 0 could not admit rank {} at {} within the bootstrap time limit "
                                     "(SYMM_BOOTSTRAP_TIMEOUT_MS): the rank stopped reading",
                                     hello.rank, place.socket));
    }
    if (answered) {
      sockets[hello.rank] = std::move(connection.socket);
      ++admitted;
    }
  };

  while (admitted < me.world) {
    const int wait = milliseconds_left(deadline);
    if (wait == 0) {
      std::vector<int> missing;
      for (int r = 1; r < me.world; ++r) {
        if (!sockets[r].valid()) missing.push_back(r);
      }
      throw TimeoutError(fmt::format(
          "rendezvous at {} timed out after {} ms: {} of {} did not join ({} job {}). Were they "
          "started, in the same job, on this host? (SYMM_BOOTSTRAP_TIMEOUT_MS sets the limit)",
          place.socket, timeout.count(), describe_ranks(missing), me.world, me.name, me.job));
    }
    std::vector<pollfd> polled{{listener.get(), POLLIN, 0}};
    for (const Pending& connection : pending) polled.push_back({connection.socket.get(), POLLIN, 0});
    if (::poll(polled.data(), polled.size(), wait) < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("rendezvous poll failed: {}", system_error_text(errno)));
    }
    for (std::size_t i = pending.size(); i-- > 0;) {
      if (polled[i + 1].revents == 0) continue;
      Pending& connection = pending[i];
      auto* bytes = reinterpret_cast<std::byte*>(&connection.hello);
      const ssize_t n = ::recv(connection.socket.get(), bytes + connection.received,
                               sizeof(Hello) - connection.received, MSG_DONTWAIT);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n > 0) connection.received += static_cast<std::size_t>(n);
      if (n > 0 && connection.received == sizeof(Hello)) judge(connection);
      if (n <= 0 || connection.received == sizeof(Hello)) pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (polled[0].revents & POLLIN) {
      UniqueFd accepted(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
      // A failure that leaves the connection queued (no descriptor left, no memory) would
      // make every poll return at once until the deadline, and the timeout then blames
      // the ranks: say what rank 0 lacks instead.
      const int error = accepted.valid() ? 0 : errno;
      if (error != 0 && error != EAGAIN && error != EWOULDBLOCK && error != EINTR && error != ECONNABORTED)
        throw Error(fmt::format("rendezvous at {}: rank 0 cannot accept the ranks' connections: {}", place.socket,
                                system_error_text(error)));
      if (accepted.valid() && pending.size() < max_pending) pending.push_back(Pending{std::move(accepted)});
    }
  }
  return sockets;
}

UniqueFd rendezvous_join(const LauncherInfo& me, const RendezvousPlace& place,
                         std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const sockaddr_un address = socket_address(place.socket);
  auto backoff = std::chrono::milliseconds(5);
  UniqueFd socket;
  for (;;) {
    socket = unix_socket();
    if (::connect(socket.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) break;
    // Not listening yet (ENOENT, ECONNREFUSED) or its backlog is full (EAGAIN): retry.
    if (errno != ENOENT && errno != ECONNREFUSED && errno != EAGAIN && errno != EINTR) {
      throw Error(fmt::format("cannot connect to the rendezvous at {}: {}", place.socket, system_error_text(errno)));
    }
    if (Clock::now() + backoff >= deadline) {
      throw TimeoutError(fmt::format(
          "rank {} could not reach rank 0 at {} within {} ms ({} job {}): is rank 0 running on this "
          "host, in the same job? (SYMM_BOOTSTRAP_TIMEOUT_MS sets the limit)",
          me.rank, place.socket, timeout.count(), me.name, me.job));
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(100));
  }
  if (std::string problem = membership_problem(socket.get(), me, 0); !problem.empty()) {
    throw Error(fmt::format("the process listening at {} is not rank 0 of this job: {}", place.socket, problem));
  }
  Hello hello{kMagic, kVersion, me.rank, me.world, fnv1a(me.identity)};
  Reply reply{};
  try {
    if (!transfer_exact(socket.get(), reinterpret_cast<std::byte*>(&hello), sizeof hello, false, deadline) ||
        !read_struct(socket.get(), reply, deadline) || reply.magic != kMagic) {
      throw Error(fmt::format("rank 0 closed the rendezvous connection at {} without admitting rank {}",
                              place.socket, me.rank));
    }
    if (reply.admitted != 1) {
      std::string reason(std::min<std::uint32_t>(reply.reason_length, 4096), '\0');
      transfer_exact(socket.get(), reinterpret_cast<std::byte*>(reason.data()), reason.size(), true, deadline);
      throw Error(fmt::format("rank 0 refused this process at the rendezvous: {}", reason));
    }
  } catch (const TimeoutError&) {
    throw TimeoutError(fmt::format(
        "rank {} reached rank 0 at {} but was not answered within {} ms ({} job {}): rank 0 may be stuck or "
        "out of time itself (SYMM_BOOTSTRAP_TIMEOUT_MS sets the limit)",
        me.rank, place.socket, timeout.count(), me.name, me.job));
  }
  return socket;
}

}  // namespace symm::detail
