#include "process_group.hpp"

#include <dirent.h>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>

namespace symm::detail {
namespace {

using Clock = std::chrono::steady_clock;

// Process group and state of `pid` from /proc/<pid>/stat; none when it is gone or
// unreadable. The command name (2nd field) may hold spaces and parentheses: the fields
// after it start past the last ')'.
struct ProcStat {
  char state = '?';
  pid_t group = -1;
};
bool read_stat(pid_t pid, ProcStat& out) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const auto paren = text.rfind(')');
  if (paren == std::string::npos) return false;
  std::istringstream fields(text.substr(paren + 1));
  pid_t parent = 0;
  return static_cast<bool>(fields >> out.state >> parent >> out.group);
}

// The members left, until none are or `deadline` passes.
std::vector<pid_t> wait_gone(pid_t group, const std::vector<pid_t>& except, Clock::time_point deadline) {
  for (;;) {
    std::vector<pid_t> left = process_group_members(group, except);
    if (left.empty() || Clock::now() >= deadline) return left;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

std::vector<pid_t> process_group_members(pid_t group, const std::vector<pid_t>& except) {
  std::vector<pid_t> members;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return members;
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0) continue;
    ProcStat stat;
    if (!read_stat(static_cast<pid_t>(pid), stat) || stat.group != group || stat.state == 'Z' || stat.state == 'X')
      continue;
    if (std::find(except.begin(), except.end(), static_cast<pid_t>(pid)) == except.end())
      members.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  std::sort(members.begin(), members.end());
  return members;
}

std::vector<pid_t> end_process_group(pid_t group, const std::vector<pid_t>& except,
                                     std::chrono::milliseconds grace) {
  ::kill(-group, SIGTERM);
  std::vector<pid_t> left = wait_gone(group, except, Clock::now() + grace);
  if (left.empty()) return left;
  ::kill(-group, SIGKILL);
  return wait_gone(group, except, Clock::now() + grace);
}

}  // namespace symm::detail
