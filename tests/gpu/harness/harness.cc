#include "harness.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "symm/host/log.hpp"

namespace symm::test {
namespace {

RuntimeOptions options_with_heap(std::size_t heap_bytes) {
  RuntimeOptions options = RuntimeOptions::from_env();
  options.heap_size = heap_bytes;
  return options;
}

int launch_ranks(int ranks, const std::function<int(Team&)>& rank_main) {
  std::fflush(nullptr);  // the ranks are forked: nothing buffered may be written twice
  LaunchOptions launch;
  launch.num_ranks = ranks;
  launch.rank_timeout = std::chrono::seconds(240);  // a hang fails the test, not the run
  return symm::launch(launch, rank_main);
}

// Points this process's stdout and stderr at `path` (device printf writes to stdout).
void redirect_output(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw Error(fmt::format("cannot create {}", path.string()));
  std::fflush(nullptr);
  ::dup2(fd, STDOUT_FILENO);
  ::dup2(fd, STDERR_FILENO);
  ::close(fd);
}

}  // namespace

int run_on_ranks(int ranks, const RankBody& body, std::size_t heap_bytes) {
  return launch_ranks(ranks, [&](Team& team) {
    Runtime rt(team, options_with_heap(heap_bytes));
    return body(rt);
  });
}

CapturedRun run_on_ranks_captured(int ranks, const RankBody& body, std::size_t heap_bytes) {
  char pattern[] = "/tmp/symm-rank-output-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw Error("mkdtemp failed");
  const std::filesystem::path dir = pattern;
  const auto file_of = [&](int rank) { return dir / fmt::format("rank{}.txt", rank); };

  CapturedRun run;
  const auto start = std::chrono::steady_clock::now();
  run.exit_code = launch_ranks(ranks, [&](Team& team) {
    redirect_output(file_of(team.rank()));
    Runtime rt(team, options_with_heap(heap_bytes));
    const int code = body(rt);
    std::fflush(nullptr);
    return code;
  });
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int r = 0; r < ranks; ++r) {
    std::ifstream file(file_of(r));
    std::stringstream text;
    text << file.rdbuf();
    run.output.push_back(text.str());
  }
  std::filesystem::remove_all(dir);
  return run;
}

int scaled(const Runtime& rt, int full, int shared) {
  return rt.world() <= count_visible_gpus() ? full : shared;
}

void Failures::check(bool ok, const std::string& what) {
  if (ok) return;
  if (++count_ <= 20) log::error(fmt::format("{}: {}", suite_, what));
}

int Failures::exit_code() const {
  if (count_ > 20) log::error(fmt::format("{}: {} failed checks in all", suite_, count_));
  return count_ == 0 ? 0 : 1;
}

}  // namespace symm::test
