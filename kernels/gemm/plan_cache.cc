// The tuned-plan cache file (plan_cache.hpp): keys, tolerant reading, locked atomic writes.
#include "symm/gemm/plan_cache.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <utility>

#include "symm/host/log.hpp"
#include "symm/host/unique_fd.hpp"

namespace symm::gemm {
namespace {

using json = nlohmann::json;

// Files of another version are ignored: bump it when a key or a recorded choice changes meaning.
// 2: tune keeps the heuristic's plan unless another is 2 % faster; 3: a choice names the
// operands it copies, and keys the clusters and operand-copies options.
constexpr int kFormatVersion = 3;
// How long recording a tuned plan waits for the cache file's lock.
constexpr std::chrono::seconds kLockWait{5};

// What the file records of a plan: enough to recognise it among the candidates.
// The copies are part of what was timed: operands whose alignment differs get other ones.
std::string choice_of(const Plan& plan) {
  std::string copied;
  for (auto [name, copy] : {std::pair{'A', &plan.copies.a}, {'B', &plan.copies.b}, {'C', &plan.copies.c}})
    if (copy->needed()) copied += name;
  return fmt::format("{} {} blocks={} copies={}", to_string(plan.config), decomposition(plan.sched),
                     plan.num_blocks, copied.empty() ? "none" : copied);
}

// The candidate that `plans` records for `key`, if any.
std::optional<Plan> recorded(const json& plans, const std::string& key, const std::vector<Plan>& candidates,
                             const std::string& path) {
  const auto it = plans.find(key);
  if (it == plans.end() || !it->is_string()) return std::nullopt;
  for (const Plan& plan : candidates)
    if (plan.kind == KernelKind::wgmma && choice_of(plan) == it->get<std::string>()) {
      Plan found = plan;
      found.reason = fmt::format("tuned plan recorded in {}", path);
      return found;
    }
  return std::nullopt;
}

// The recorded plans ({key: choice}); none when the file is missing, and none with a
// warning when it cannot be read, is not a plan cache or has another version.
json read_plans(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec))
      log::warn(fmt::format("symm gemm: plan cache {} cannot be read; tuning without it", path));
    return json::object();
  }
  std::stringstream text;
  text << in.rdbuf();
  const json file = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  const bool ours = file.is_object() && file.contains("plans") && file["plans"].is_object() &&
                    file.contains("version") && file["version"].is_number_integer();
  if (!ours) {
    log::warn(fmt::format("symm gemm: plan cache {} is not a plan cache (corrupt?): ignored, and replaced "
                          "by the next tuned plan",
                          path));
    return json::object();
  }
  if (file["version"].get<std::int64_t>() != kFormatVersion) {
    log::warn(fmt::format("symm gemm: plan cache {} has format version {}, this build reads {}: ignored, "
                          "and replaced by the next tuned plan",
                          path, file["version"].dump(), kFormatVersion));
    return json::object();
  }
  return file["plans"];
}

// Writes a temporary file, flushed to the disk, and renames it over `path`, so readers see
// the old or the new file whole (a full disk or a crash cannot leave half of one there).
bool write_plans(const std::string& path, const json& plans) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string tmp = fmt::format("{}.{}.{}.tmp", path, host, ::getpid());
  const std::string text = json{{"version", kFormatVersion}, {"plans", plans}}.dump(1) + "\n";
  {
    UniqueFd out(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    bool written = out.valid();
    for (std::size_t done = 0; written && done < text.size();) {
      const ssize_t n = ::write(out.get(), text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      written = n > 0;
      if (written) done += std::size_t(n);
    }
    if (!written || ::fsync(out.get()) != 0 || ::close(out.release()) != 0) {
      const int error = errno;
      std::remove(tmp.c_str());
      errno = error;
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) == 0) return true;
  const int error = errno;  // the caller says why
  std::remove(tmp.c_str());
  errno = error;
  return false;
}

}  // namespace

std::string plan_cache_key(std::string_view gpu_name, const DeviceLimits& d, const GemmProblem& p,
                           const GemmOptions& o, const std::vector<Plan>& candidates) {
  std::string key = fmt::format("{} sms={} {}->{} B={} M={} N={} K={} blocks={} gsize_m={} k_splits={} "
                                "stream_k={} split_tail={} pingpong={} clusters={} operand_copies={} among",
                                gpu_name, d.sm_count, to_string(p.in_dtype), to_string(p.out_dtype),
                                to_string(p.b_layout), p.m, p.n, p.k, o.num_blocks, o.gsize_m, o.k_splits,
                                o.stream_k, o.split_tail, o.pingpong, o.clusters, int(o.operand_copies));
  for (const Plan& plan : candidates) key += " [" + choice_of(plan) + "]";
  return key;
}

PlanCache::PlanCache(std::string path) : path_(std::move(path)) {}

PlanCache PlanCache::from_env() {
  const char* set = std::getenv("SYMM_GEMM_PLAN_CACHE");
  if (set && *set) return PlanCache(std::string_view(set) == "off" ? "" : set);
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg == '/') return PlanCache(std::string(xdg) + "/symm/gemm-plans.json");
  const char* home = std::getenv("HOME");
  if (home && *home) return PlanCache(std::string(home) + "/.cache/symm/gemm-plans.json");
  return PlanCache("");  // nowhere to keep it
}

std::optional<Plan> PlanCache::find(const std::string& key, const std::vector<Plan>& candidates) const {
  if (!enabled()) return std::nullopt;
  return recorded(read_plans(path_), key, candidates, path_);
}

Plan PlanCache::record(const std::string& key, const Plan& chosen, const std::vector<Plan>& candidates) const {
  if (!enabled()) return chosen;
  std::error_code ec;
  if (const auto dir = std::filesystem::path(path_).parent_path(); !dir.empty())
    std::filesystem::create_directories(dir, ec);
  const std::string lock_path = path_ + ".lock";
  UniqueFd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  int error = lock.valid() ? 0 : errno;
  // Bounded: a holder that is stopped (or a lock on a stuck network file system) must not
  // hold up every rank that tunes; the plan is then used without being recorded.
  const auto deadline = std::chrono::steady_clock::now() + kLockWait;
  while (lock.valid() && ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    error = errno;
    if ((error != EINTR && error != EWOULDBLOCK) || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    error = 0;
  }
  if (error != 0) {
    log::warn(fmt::format("symm gemm: cannot lock {} ({}): tuned plan not recorded", lock_path,
                          error == EWOULDBLOCK
                              ? fmt::format("held by another process for over {} s", kLockWait.count())
                              : std::string(std::strerror(error))));
    return chosen;
  }
  json plans = read_plans(path_);
  if (auto first = recorded(plans, key, candidates, path_)) return *first;  // another rank tuned first
  plans[key] = choice_of(chosen);
  if (!write_plans(path_, plans))
    log::warn(fmt::format("symm gemm: cannot write plan cache {} ({}): tuned plan not recorded", path_,
                          std::strerror(errno)));
  return chosen;
}

}  // namespace symm::gemm
