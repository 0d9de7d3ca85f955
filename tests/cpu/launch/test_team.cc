// The bootstrap team in one process: one thread per rank over socket pairs wired the
// way the supervisor wires them, so timeouts, lost peers and disagreeing calls are
// quick to provoke.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <thread>

#include "link.hpp"
#include "socket_team.hpp"
#include "symm/common/error.hpp"
#include "symm/host/gather.hpp"
#include "symm/host/team.hpp"

namespace {

using namespace std::chrono_literals;
using TeamPtr = std::unique_ptr<symm::Team>;

std::vector<TeamPtr> make_teams(int world, std::chrono::milliseconds timeout = 5000ms) {
  std::vector<std::vector<symm::UniqueFd>> sockets(world);
  for (auto& row : sockets) row.resize(world);
  for (int r = 1; r < world; ++r) {
    int pair[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    sockets[0][r].reset(pair[0]);
    sockets[r][0].reset(pair[1]);
  }
  std::vector<TeamPtr> teams;
  for (int r = 0; r < world; ++r) teams.push_back(symm::detail::make_socket_team(r, world, std::move(sockets[r]), timeout));
  return teams;
}

// Runs body for every rank on its own thread; returns what each rank threw ("" if
// nothing). A rank that throws closes its team, as its process would by exiting.
std::vector<std::string> run_ranks(std::vector<TeamPtr>& teams, const std::function<void(int, TeamPtr&)>& body) {
  std::vector<std::string> errors(teams.size());
  std::vector<std::thread> threads;
  for (std::size_t r = 0; r < teams.size(); ++r) {
    threads.emplace_back([&, r] {
      try {
        body(static_cast<int>(r), teams[r]);
      } catch (const std::exception& e) {
        errors[r] = std::string(typeid(e).name()) + ": " + e.what();
        teams[r].reset();
      }
    });
  }
  for (auto& t : threads) t.join();
  return errors;
}

std::vector<std::byte> bytes_of(const std::string& text) {
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(SocketTeam, CollectivesDeliverEveryRanksData) {
  auto teams = make_teams(3);
  auto errors = run_ranks(teams, [](int rank, TeamPtr& team) {
    EXPECT_EQ(team->rank(), rank);
    EXPECT_EQ(team->world(), 3);
    team->barrier();

    std::vector<std::byte> big(3 << 20);  // larger than a socket buffer: partial writes
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::byte>(rank == 2 ? i * 7 + 1 : 0);
    team->broadcast(big, 2);
    for (std::size_t i = 0; i < big.size(); i += 4093) ASSERT_EQ(big[i], static_cast<std::byte>(i * 7 + 1));

    const auto all = team->all_gather(bytes_of("rank" + std::to_string(rank)));
    EXPECT_EQ(all, bytes_of("rank0rank1rank2"));

    symm::UniqueFd mine(::memfd_create("team-test", MFD_CLOEXEC));
    ASSERT_TRUE(mine.valid());
    ASSERT_EQ(::ftruncate(mine.get(), 4096 * (rank + 1)), 0);
    const auto fds = team->all_gather_fds(mine.get());
    ASSERT_EQ(fds.size(), 3u);
    for (int peer = 0; peer < 3; ++peer) {
      struct stat info;
      ASSERT_EQ(::fstat(fds[peer].get(), &info), 0);
      EXPECT_EQ(info.st_size, 4096 * (peer + 1)) << "descriptor of rank " << peer;
    }
    EXPECT_NE(fds[rank].get(), mine.get());
  });
  for (const auto& e : errors) EXPECT_EQ(e, "");
}

// gather returns every rank's struct by rank; first_rank_unlike names the lowest rank
// whose value differs (what the heap's and the op's agreement checks report).
TEST(SocketTeam, GatherAndTheFirstRankUnlikeAValue) {
  struct Pair {
    int rank;
    double half;
    bool operator==(const Pair&) const = default;
  };
  auto teams = make_teams(3);
  auto errors = run_ranks(teams, [](int rank, TeamPtr& team) {
    const std::vector<Pair> all = symm::gather(*team, Pair{rank, rank / 2.0});
    EXPECT_EQ(all, (std::vector<Pair>{{0, 0.0}, {1, 0.5}, {2, 1.0}}));
    EXPECT_EQ(symm::first_rank_unlike(all, all[0]), 1);
    EXPECT_EQ(symm::first_rank_unlike(all, Pair{2, 1.0}), 0);
    const std::vector<int> same = symm::gather(*team, 7);
    EXPECT_EQ(symm::first_rank_unlike(same, 7), -1);
  });
  for (const auto& e : errors) EXPECT_EQ(e, "");
}

TEST(SocketTeam, WorldOfOne) {
  auto teams = make_teams(1);
  auto& team = *teams[0];
  team.barrier();
  std::vector<std::byte> data = bytes_of("x");
  team.broadcast(data, 0);
  EXPECT_EQ(data, bytes_of("x"));
  EXPECT_EQ(team.all_gather(bytes_of("abc")), bytes_of("abc"));
  symm::UniqueFd mine(::memfd_create("one", MFD_CLOEXEC));
  auto fds = team.all_gather_fds(mine.get());
  ASSERT_EQ(fds.size(), 1u);
  struct stat a, b;
  ::fstat(mine.get(), &a);
  ::fstat(fds[0].get(), &b);
  EXPECT_EQ(a.st_ino, b.st_ino);
  EXPECT_NE(fds[0].get(), mine.get());
  EXPECT_THROW(team.broadcast(data, 1), symm::Error);
}

TEST(SocketTeam, TimeoutNamesTheRankThatDidNotCome) {
  auto teams = make_teams(4, 300ms);
  const auto start = std::chrono::steady_clock::now();
  auto errors = run_ranks(teams, [](int rank, TeamPtr& team) {
    if (rank != 2) team->barrier();  // rank 2 never arrives
  });
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_TRUE(contains(errors[0], "TimeoutError")) << errors[0];
  EXPECT_TRUE(contains(errors[0], "no answer from rank 2.")) << errors[0];
  EXPECT_TRUE(contains(errors[0], "barrier (collective #0)")) << errors[0];
  for (int r : {1, 3}) EXPECT_TRUE(contains(errors[r], "rank 0 (the hub")) << errors[r];
  EXPECT_EQ(errors[2], "");
}

TEST(SocketTeam, LostPeerIsNamedAndLeavesTheTeamUnusable) {
  auto teams = make_teams(3, 10000ms);
  teams[2].reset();  // rank 2 "crashed": its socket closed
  const auto start = std::chrono::steady_clock::now();
  auto errors = run_ranks(teams, [](int rank, TeamPtr& team) {
    if (!team) return;
    try {
      team->barrier();
    } catch (const symm::PeerLostError&) {
      if (rank == 0) {
        EXPECT_THROW(team->barrier(), symm::Error) << "a failed team must stay failed";
      }
      throw;
    }
  });
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "a lost peer is noticed at once, not at the timeout";
  EXPECT_TRUE(contains(errors[0], "rank 2 closed its bootstrap connection")) << errors[0];
  EXPECT_TRUE(contains(errors[1], "rank 0 (the hub) closed")) << errors[1];
  // lost_peer() is per process (set by the first loss of any test in this binary), so it
  // is checked where each rank is a process: the Supervisor tests name the killed rank,
  // not the ranks that lost it.
}

TEST(SocketTeam, DisagreeingCallsAreReportedNotMisread) {
  auto teams = make_teams(3, 2000ms);
  auto errors = run_ranks(teams, [](int rank, TeamPtr& team) {
    if (rank == 1) {
      std::vector<std::byte> data(8);
      team->broadcast(data, 0);
    } else {
      team->barrier();
    }
  });
  EXPECT_TRUE(contains(errors[0], "rank 1 called broadcast(root 0, 8 bytes)")) << errors[0];
  EXPECT_TRUE(contains(errors[0], "rank 0 called barrier")) << errors[0];

  teams = make_teams(3, 2000ms);
  errors = run_ranks(teams, [](int rank, TeamPtr& team) {
    team->all_gather(std::vector<std::byte>(rank == 2 ? 4 : 8));
  });
  EXPECT_TRUE(contains(errors[0], "rank 2 called all_gather(4 bytes)")) << errors[0];
}


// Descriptors a peer sent that this process has no room for are dropped by the kernel
// (the message comes truncated): the error says what this process lacks, not that the
// peer broke the protocol. The receiver runs in a child, whose descriptor limit it lowers.
TEST(Link, DescriptorsThisProcessCannotTakeAreBlamedOnItsLimit) {
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  const pid_t receiver = ::fork();
  ASSERT_GE(receiver, 0);
  if (receiver == 0) {
    ::close(pair[0]);
    symm::detail::Link link(0, symm::UniqueFd(pair[1]));
    // Every descriptor below 64 in use, and a limit of 64: none left for what arrives.
    const int null = ::open("/dev/null", O_RDONLY);
    for (int fd = 0; fd < 64; ++fd)
      if (::fcntl(fd, F_GETFD) == -1) ::dup2(null, fd);
    const rlimit limit{64, 64};
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::_exit(3);
    pollfd readable{link.fd(), POLLIN, 0};
    if (::poll(&readable, 1, 5000) != 1) ::_exit(4);
    try {
      link.read_some();
    } catch (const symm::Error& e) {
      const std::string what = e.what();
      const bool says = contains(what, "lost on receipt") && contains(what, "ulimit -n");
      if (!says) std::fprintf(stderr, "receiver error: %s\n", e.what());
      ::_exit(says ? 0 : 2);
    }
    ::_exit(5);
  }
  ::close(pair[1]);
  symm::detail::Link link(1, symm::UniqueFd(pair[0]));
  symm::UniqueFd sent(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  link.queue(bytes_of("fd"), nullptr, {sent.get(), sent.get()});
  while (link.has_output()) ASSERT_TRUE(link.write_some());
  int status = 0;
  ASSERT_EQ(::waitpid(receiver, &status, 0), receiver);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: setrlimit failed; 4: nothing arrived; 2: the error did not say it; "
                                       "5: no error";
}

}  // namespace
