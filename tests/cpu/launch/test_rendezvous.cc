// The rendezvous's private directory and socket, checked in this process (a job of one
// rank needs no peer, so the hub returns at once after setting up and cleaning up).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "process_harness.hpp"
#include "rendezvous.hpp"
#include "symm/common/error.hpp"

namespace {

using namespace std::chrono_literals;
using symm::detail::LauncherInfo;

struct Fixture {
  symm::test::TempDir runtime;  // stands for $XDG_RUNTIME_DIR
  LauncherInfo me;
  symm::detail::RendezvousPlace place;
  std::string user_dir;

  Fixture() {
    me.name = "test";
    me.job = "job";
    me.identity = "test|" + runtime.path();
    me.world = 1;
    place = symm::detail::rendezvous_place(me.identity, symm::detail::env_lookup({{"XDG_RUNTIME_DIR", runtime.path()}}));
    user_dir = runtime.path() + "/symm-" + std::to_string(::geteuid());
  }
};

std::string host_error(const Fixture& f) {
  try {
    symm::detail::rendezvous_host(f.me, f.place, 1s);
  } catch (const symm::Error& e) {
    return e.what();
  }
  return "";
}

TEST(Rendezvous, PlaceIsPrivatePerUserAndPerJob) {
  Fixture f;
  EXPECT_EQ(f.place.directory.rfind(f.user_dir + "/", 0), 0u) << f.place.directory;
  EXPECT_EQ(f.place.socket, f.place.directory + "/hub.sock");
  LauncherInfo other = f.me;
  other.identity += "-other";
  EXPECT_NE(symm::detail::rendezvous_place(other.identity, symm::detail::env_lookup({{"XDG_RUNTIME_DIR", f.runtime.path()}})).directory,
            f.place.directory);
  // Without a usable XDG_RUNTIME_DIR the place is under /tmp.
  EXPECT_EQ(symm::detail::rendezvous_place("x", symm::detail::env_lookup({{"XDG_RUNTIME_DIR", "/no/such/dir"}})).directory.rfind("/tmp/symm-", 0), 0u);
}

TEST(Rendezvous, CreatesA0700DirectoryAndRemovesItsOwn) {
  Fixture f;
  EXPECT_EQ(host_error(f), "");
  struct stat info;
  ASSERT_EQ(::stat(f.user_dir.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  EXPECT_FALSE(std::filesystem::exists(f.place.directory)) << "the job's directory is removed after the rendezvous";
}

TEST(Rendezvous, RefusesADirectoryOthersCanEnter) {
  Fixture f;
  ASSERT_EQ(::mkdir(f.user_dir.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(f.user_dir.c_str(), 0755), 0);
  EXPECT_NE(host_error(f).find("other users may access it (mode 0755"), std::string::npos) << host_error(f);
}

TEST(Rendezvous, RefusesASymbolicLink) {
  Fixture f;
  const std::string target = f.runtime.path() + "/elsewhere";
  ASSERT_EQ(::mkdir(target.c_str(), 0700), 0);
  ASSERT_EQ(::symlink(target.c_str(), f.user_dir.c_str()), 0);
  EXPECT_NE(host_error(f).find("symbolic link"), std::string::npos) << host_error(f);
}

symm::UniqueFd bound_socket(const std::string& path, bool listening) {
  symm::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  EXPECT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  if (listening) {
    EXPECT_EQ(::listen(fd.get(), 1), 0);
  }
  return fd;
}

TEST(Rendezvous, ReplacesAStaleSocketButNeverALiveOne) {
  Fixture f;
  std::filesystem::create_directories(f.place.directory);
  std::filesystem::permissions(f.user_dir, std::filesystem::perms::owner_all);
  std::filesystem::permissions(f.place.directory, std::filesystem::perms::owner_all);
  {
    auto live = bound_socket(f.place.socket, true);  // a running job with the same identity
    EXPECT_NE(host_error(f).find("another process already listens"), std::string::npos) << host_error(f);
    // The refused hub leaves the running job's socket where it is.
    EXPECT_TRUE(std::filesystem::exists(f.place.socket)) << "the other job's socket was removed";
    ::unlink(f.place.socket.c_str());
  }
  bound_socket(f.place.socket, false);  // left behind by a job that died: nobody listens
  EXPECT_EQ(host_error(f), "");
}

// Connects to `socket` until it listens (up to 5 s), then holds the connection.
[[noreturn]] void knock_at(const std::string& socket) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket.c_str(), sizeof address.sun_path - 1);
  for (int attempt = 0; attempt < 500; ++attempt) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
      ::sleep(10);
      ::_exit(0);
    }
    ::close(fd);
    ::usleep(10'000);
  }
  ::_exit(1);
}

// Rank 0 out of file descriptors when a rank connects: the connection stays queued, so
// ignoring accept's error spun until the deadline and then blamed the rank for not
// joining. The error says what rank 0 lacks, at once.
TEST(Rendezvous, RankZeroOutOfDescriptorsSaysSoAtOnce) {
  Fixture f;
  f.me.world = 2;
  const pid_t knocker = ::fork();
  ASSERT_GE(knocker, 0);
  if (knocker == 0) knock_at(f.place.socket);
  const pid_t host = ::fork();
  ASSERT_GE(host, 0);
  if (host == 0) {
    // Every descriptor below 64 in use, and a limit of 65: the listener takes the last.
    const int null = ::open("/dev/null", O_RDONLY);
    for (int fd = 0; fd < 64; ++fd)
      if (::fcntl(fd, F_GETFD) == -1) ::dup2(null, fd);
    const rlimit limit{65, 65};
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::_exit(3);
    const auto start = std::chrono::steady_clock::now();
    const std::string error = host_error(f);  // 1 s deadline
    const bool quick = std::chrono::steady_clock::now() - start < 500ms;
    const bool says = error.find("rank 0 cannot accept the ranks' connections") != std::string::npos &&
                      error.find("ulimit -n") != std::string::npos;
    if (!says) std::fprintf(stderr, "host error: %s\n", error.c_str());
    ::_exit(says && quick ? 0 : 2);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(host, &status, 0), host);
  ::kill(knocker, SIGKILL);
  ::waitpid(knocker, nullptr, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: setrlimit failed; 2: the error did not say it, or came late";
}

// Rank 0 (or a joining rank) out of file descriptors when it reads the other process's
// /proc/<pid>/environ: that is its own failure, said at once. It counted as the other
// process's refusal, so rank 0 turned away a rank of its job and timed out blaming it.
TEST(Rendezvous, NoDescriptorLeftToCheckAMemberIsThisProcesssOwnFailure) {
  const pid_t checker = ::fork();
  ASSERT_GE(checker, 0);
  if (checker == 0) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) ::_exit(3);
    // Every descriptor below the limit of 64 in use: opening /proc/<pid>/environ fails.
    const int null = ::open("/dev/null", O_RDONLY);
    for (int fd = 0; fd < 64; ++fd)
      if (::fcntl(fd, F_GETFD) == -1) ::dup2(null, fd);
    const rlimit limit{64, 64};
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::_exit(3);
    LauncherInfo me;
    me.name = "test";
    me.world = 2;
    try {
      const std::string problem = symm::detail::membership_problem(pair[0], me, 1);
      std::fprintf(stderr, "returned a problem of the other process: %s\n", problem.c_str());
      ::_exit(2);
    } catch (const symm::Error& e) {
      const std::string what = e.what();
      const bool says = what.find("rank 0 cannot check pid") != std::string::npos &&
                        what.find("ulimit -n") != std::string::npos;
      if (!says) std::fprintf(stderr, "error: %s\n", what.c_str());
      ::_exit(says ? 0 : 2);
    }
  }
  int status = 0;
  ASSERT_EQ(::waitpid(checker, &status, 0), checker);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: set-up failed; 2: not reported as this process's own failure";
}

}  // namespace
