#pragma once
// The environment a test gives the programs it starts: this process's, without any
// launcher's or symm's rank variables (so that tests behave the same when the test itself
// runs under srun, mpirun or torchrun), with the test's own settings on top.
#include <map>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace symm::test {

using EnvOverrides = std::map<std::string, std::optional<std::string>>;  // nullopt: unset

inline bool is_rank_variable(const std::string& name) {
  static const char* const exact[] = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK",
                                      "GROUP_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "SYMM_RANK",
                                      "SYMM_WORLD", "SYMM_LOCAL_RANK", "SYMM_JOB_ID", "SYMM_RANK_TIMEOUT_S",
                                      "SYMM_BOOTSTRAP_TIMEOUT_MS", "SYMM_LOG_LEVEL"};
  static const char* const prefixes[] = {"TORCHELASTIC_", "OMPI_", "PMIX_", "PMI_", "SLURM_"};
  for (const char* e : exact)
    if (name == e) return true;
  for (const char* p : prefixes)
    if (name.starts_with(p)) return true;
  return false;
}

// This process's environment without the rank variables.
inline std::map<std::string, std::string> clean_environment() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const auto eq = text.find('=');
    if (eq == std::string::npos) continue;
    std::string name = text.substr(0, eq);
    if (!is_rank_variable(name)) env[name] = text.substr(eq + 1);
  }
  return env;
}

// The clean environment with `overrides` applied: a name given a value replaces any
// inherited one (getenv returns the first of two, so appending would not).
inline std::map<std::string, std::string> merged_environment(const EnvOverrides& overrides) {
  auto env = clean_environment();
  for (const auto& [name, value] : overrides) {
    if (value) {
      env[name] = *value;
    } else {
      env.erase(name);
    }
  }
  return env;
}

// "NAME=value" strings, as execve and posix_spawn take them.
inline std::vector<std::string> environment_strings(const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

}  // namespace symm::test
