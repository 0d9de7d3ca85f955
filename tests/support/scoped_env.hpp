#pragma once
// One environment variable set (or unset) for the life of a test scope, and put back as it was
// after (set to its old value, or unset), so that no test leaks a setting into the next.
// Ranks and programs a test starts inside the scope inherit it.
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  // Unset for the scope.
  ScopedEnv(std::string name, std::nullopt_t) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    ::unsetenv(name_.c_str());
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};
