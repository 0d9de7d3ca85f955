// A symm program for the launcher tests: its ranks behave as --mode says, so the tests
// can watch the supervisor, the rendezvous and the collectives from outside.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "symm/host/launch.hpp"
#include "symm/host/log.hpp"
#include "symm/host/options.hpp"

namespace {

struct DriverOptions {
  std::string mode = "collectives";  // collectives | env | sleep | fail | stall | mismatch
  std::string fail = "exit1";        // fail mode: exit1 | exit256 | throw | signal | hang
  std::string others = "sleep";      // fail mode, the other ranks: sleep | barrier | exit
  int fail_rank = 1;
  int signal_number = SIGKILL;
  int iterations = 3;
  int tag = 0;  // mixed into every payload, so two concurrent jobs' data differ
  int stall_ms = 3000;
  bool ignore_term = false;
  bool rank_left_behind = false;  // the supervisor may return with a rank it could not reap
  // Each rank first starts a process of its own that sleeps (child<rank>.pid in pid_dir):
  // "sleep", or "ignore_term" (it ignores SIGTERM); empty: none.
  std::string start_child;
  bool handle_interrupts = false;  // the program has its own SIGINT and SIGTERM handler
  std::string pid_dir;
  std::string setenv_before_launch;  // NAME=VALUE set inside the process before symm::launch
};

[[noreturn]] void check_failed(const std::string& what) { throw symm::Error("check failed: " + what); }

// A payload that names its job (tag), sender and iteration, so a mixed-up or
// half-delivered message cannot pass the checks.
std::vector<std::byte> payload(int tag, int source, int iteration, std::size_t size) {
  std::vector<std::byte> bytes(size);
  for (std::size_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<std::byte>((tag * 131 + source * 31 + iteration * 7 + i * 13 + (i >> 8)) & 0xff);
  }
  const std::string header = fmt::format("{}:{}:{}", tag, source, iteration);
  std::memcpy(bytes.data(), header.data(), std::min(size, header.size()));
  return bytes;
}

void check_broadcasts(symm::Team& team, int tag, int iteration) {
  for (int root = 0; root < team.world(); ++root) {
    // Sizes vary with root and iteration; one large message exercises partial I/O.
    const std::size_t size = iteration == 0 && root == team.world() - 1 ? (1u << 20) + 7 : 64 + 97 * root;
    const auto expected = payload(tag, root, iteration, size);
    std::vector<std::byte> data = team.rank() == root ? expected : std::vector<std::byte>(size, std::byte{0xEE});
    team.broadcast(data, root);
    if (data != expected) check_failed(fmt::format("broadcast from root {} (iteration {})", root, iteration));
  }
}

void check_all_gather(symm::Team& team, int tag, int iteration) {
  const std::size_t sizes[] = {0, 1, 13, 4096, 300000};
  const std::size_t size = sizes[iteration % 5];
  const auto all = team.all_gather(payload(tag, team.rank(), iteration, size));
  if (all.size() != size * team.world()) check_failed(fmt::format("all_gather returned {} bytes", all.size()));
  for (int source = 0; source < team.world(); ++source) {
    const auto expected = payload(tag, source, iteration, size);
    if (!std::equal(expected.begin(), expected.end(), all.begin() + source * size)) {
      check_failed(fmt::format("all_gather slot of rank {} (iteration {}, {} bytes)", source, iteration, size));
    }
  }
}

void check_all_gather_fds(symm::Team& team, int tag, int iteration) {
  symm::UniqueFd mine(::memfd_create("symm-launch-test", MFD_CLOEXEC));
  const std::string text = fmt::format("memfd of rank {} in job {} at iteration {}", team.rank(), tag, iteration);
  if (!mine.valid() || ::write(mine.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    check_failed("memfd_create/write");
  }
  const auto fds = team.all_gather_fds(mine.get());
  if (static_cast<int>(fds.size()) != team.world()) check_failed("all_gather_fds returned the wrong count");
  for (int source = 0; source < team.world(); ++source) {
    const std::string expected = fmt::format("memfd of rank {} in job {} at iteration {}", source, tag, iteration);
    std::string got(expected.size() + 8, '\0');
    const ssize_t n = fds[source].valid() ? ::pread(fds[source].get(), got.data(), got.size(), 0) : -1;
    got.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
    if (got != expected) check_failed(fmt::format("descriptor of rank {} reads \"{}\"", source, got));
    if (fds[source].get() == mine.get()) check_failed("all_gather_fds returned the caller's own descriptor");
  }
  struct stat own, back;
  ::fstat(mine.get(), &own);
  ::fstat(fds[team.rank()].get(), &back);
  if (own.st_ino != back.st_ino) check_failed("result[rank] is not the rank's own file");
}

int run_collectives(symm::Team& team, const DriverOptions& options) {
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    team.barrier();
    check_broadcasts(team, options.tag, iteration);
    check_all_gather(team, options.tag, iteration);
    check_all_gather_fds(team, options.tag, iteration);
  }
  team.barrier();
  symm::log::info(fmt::format("collectives ok (job {}, world {})", options.tag, team.world()));
  return 0;
}

void write_pid_file(const std::string& dir, const char* role, int rank, pid_t pid) {
  const std::string path = fmt::format("{}/{}{}.pid", dir, role, rank);
  {
    std::ofstream file(path + ".tmp");
    file << pid << "\n";
  }
  std::rename((path + ".tmp").c_str(), path.c_str());  // readers never see half a file
}

const char* env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : fallback;
}

// A process the rank starts and leaves running, as a rank's helper might be; its pid file
// is written before the rank's own.
void start_child(const DriverOptions& options, int rank) {
  const pid_t pid = ::fork();
  if (pid < 0) check_failed("fork of the rank's child failed");
  if (pid == 0) {
    if (options.start_child == "ignore_term") ::signal(SIGTERM, SIG_IGN);
    ::sleep(60);
    ::_exit(0);
  }
  if (!options.pid_dir.empty()) write_pid_file(options.pid_dir, "child", rank, pid);
}

int rank_main(symm::Team& team, const DriverOptions& options) {
  const int rank = team.rank();
  if (!options.start_child.empty()) start_child(options, rank);
  if (!options.pid_dir.empty()) write_pid_file(options.pid_dir, "rank", rank, ::getpid());
  if (options.ignore_term) ::signal(SIGTERM, SIG_IGN);
  const bool failing = rank == options.fail_rank;

  if (options.mode == "collectives") return run_collectives(team, options);
  if (options.mode == "env") {
    const char* names[] = {"SYMM_RANK", "SYMM_WORLD", "SYMM_LOCAL_RANK", "NCCL_NVLS_ENABLE",
                           "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"};
    std::string line = "env";
    for (const char* name : names) line += fmt::format(" {}={}", name, env_or(name, "<unset>"));
    symm::log::info(line);
    return 0;
  }
  // The remaining modes first let every rank start (and record its pid).
  team.barrier();
  if (options.mode == "sleep") {
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return 0;
  }
  if (options.mode == "stall") {
    if (failing) std::this_thread::sleep_for(std::chrono::milliseconds(options.stall_ms));
    team.barrier();
    return 0;
  }
  if (options.mode == "mismatch") {
    std::vector<std::byte> data(8);
    if (failing) {
      team.broadcast(data, 0);
    } else {
      team.barrier();
    }
    return 0;
  }
  // mode == "fail": fail_rank fails as --fail says.
  if (failing) {
    if (options.fail == "exit1") return 1;
    if (options.fail == "exit256") return 256;  // not an exit status: must not read as 0
    if (options.fail == "throw") throw symm::Error("deliberate failure in the test driver");
    if (options.fail == "signal") ::kill(::getpid(), options.signal_number);
    for (;;) ::pause();  // hang (or wait for the signal to land)
  }
  if (options.others == "exit") return 0;
  if (options.others == "barrier") {
    team.barrier();
  } else {
    std::this_thread::sleep_for(std::chrono::seconds(60));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"symm launch test driver"};
  symm::LaunchOptions launch;
  launch.needs_gpu = false;
  symm::add_launch_options(app, launch);
  std::uint64_t heap_size = 1 << 20;
  symm::add_bytes_option(app, "--heap_size", heap_size, "symmetric heap per rank (parsed only)");
  DriverOptions options;
  app.add_option("--mode", options.mode)->check(CLI::IsMember({"collectives", "env", "sleep", "fail", "stall", "mismatch"}));
  app.add_option("--fail", options.fail)->check(CLI::IsMember({"exit1", "exit256", "throw", "signal", "hang"}));
  app.add_option("--others", options.others)->check(CLI::IsMember({"sleep", "barrier", "exit"}));
  app.add_option("--fail_rank", options.fail_rank);
  app.add_option("--signal", options.signal_number);
  app.add_option("--iterations", options.iterations);
  app.add_option("--tag", options.tag);
  app.add_option("--stall_ms", options.stall_ms);
  app.add_flag("--ignore_term", options.ignore_term);
  app.add_flag("--rank_left_behind", options.rank_left_behind);
  app.add_option("--start_child", options.start_child)->check(CLI::IsMember({"sleep", "ignore_term"}));
  app.add_flag("--handle_interrupts", options.handle_interrupts);
  app.add_option("--pid_dir", options.pid_dir);
  app.add_option("--setenv", options.setenv_before_launch);
  app.add_flag("--needs_gpu", launch.needs_gpu);
  app.add_option_function<int>("--kill_grace_ms", [&](int ms) { launch.kill_grace = std::chrono::milliseconds(ms); });
  CLI11_PARSE(app, argc, argv);
  if (options.handle_interrupts) {
    struct sigaction handled{};
    handled.sa_handler = [](int) {};
    ::sigaction(SIGINT, &handled, nullptr);
    ::sigaction(SIGTERM, &handled, nullptr);
  }

  if (const auto eq = options.setenv_before_launch.find('='); eq != std::string::npos)
    ::setenv(options.setenv_before_launch.substr(0, eq).c_str(), options.setenv_before_launch.substr(eq + 1).c_str(), 1);
  const int code = symm::launch(launch, [&](symm::Team& team) { return rank_main(team, options); });
  // Only the supervisor (or a joined rank) gets here: every rank must have been reaped,
  // unless the test stages a rank that SIGKILL cannot end.
  int status;
  if (!options.rank_left_behind && (::waitpid(-1, &status, WNOHANG) != -1 || errno != ECHILD)) {
    std::fprintf(stderr, "launch_driver: launch() returned with a child process left\n");
    return 99;
  }
  symm::exit_with(code);
}
