// The rendezvous's private directory and socket, checked in this process (a job of one
// rank needs no peer, so the hub returns at once after setting up and cleaning up).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

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
  }
  std::filesystem::create_directories(f.place.directory);
  std::filesystem::permissions(f.place.directory, std::filesystem::perms::owner_all);
  bound_socket(f.place.socket, false);  // left behind by a job that died: nobody listens
  EXPECT_EQ(host_error(f), "");
}

}  // namespace
