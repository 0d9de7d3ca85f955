#pragma once
// Tuned plans kept across runs. Gemm::tune records the plan it measured fastest in a JSON
// file, keyed by the GPU (name and SM count), the problem (M, N, K, dtypes, B layout) and
// the options that shape the candidates; later tune calls, in this process or another,
// return the recorded plan without timing anything.
//
// Every rank of a job reads the same file, and the first plan recorded for a key is the
// one every later caller gets: ranks that tune the same problem at the same time all end
// with the plan of the first to finish. (Ranks on several hosts agree only if the file is
// on a shared file system with working flock, e.g. NFSv4.)
//
// Location: $SYMM_GEMM_PLAN_CACHE ("off": no cache), else
// ${XDG_CACHE_HOME:-$HOME/.cache}/symm/gemm-plans.json. Deleting the file clears it.
// A write holds flock on "<file>.lock" while it reads, adds and renames a temporary file
// over the cache, so readers see the old or the new file whole and no writer loses
// another's entries. A file that cannot be read, is not JSON or has another format
// version is ignored with a warning (and replaced by the next write); an entry naming no
// current candidate plan (recorded by another build's heuristic) is ignored and re-tuned.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symm/gemm/plan.hpp"

namespace symm::gemm {

// The key of a tuned plan: the GPU, the problem's extent, types and B layout, the options
// that change the candidates (blocks, group size, splits, stream-K, split tail, ping-pong,
// clusters, operand copies) and the candidates timed, so a heuristic that proposes other
// plans (a new build) tunes afresh.
// Strides and addresses are not part of it: the candidates are rebuilt for the actual
// problem, and a recorded plan is used only if it is one of them.
std::string plan_cache_key(std::string_view gpu_name, const DeviceLimits& d, const GemmProblem& p,
                           const GemmOptions& o, const std::vector<Plan>& candidates);

class PlanCache {
 public:
  explicit PlanCache(std::string path);  // empty: no cache (find finds nothing, record keeps nothing)
  static PlanCache from_env();           // SYMM_GEMM_PLAN_CACHE, else the default location above

  bool enabled() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

  // The candidate recorded for `key`, if any.
  std::optional<Plan> find(const std::string& key, const std::vector<Plan>& candidates) const;
  // Records `chosen` for `key` unless another caller recorded a candidate first; returns
  // the plan recorded for the key (the one every rank uses). Failing to write only warns.
  Plan record(const std::string& key, const Plan& chosen, const std::vector<Plan>& candidates) const;

 private:
  std::string path_;
};

}  // namespace symm::gemm
