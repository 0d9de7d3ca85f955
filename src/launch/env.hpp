#pragma once
// Reading environment variables: this process's, or another process's initial
// environment (/proc/<pid>/environ), behind one lookup type so launcher detection and
// the rendezvous's membership check share the same code.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "symm/common/error.hpp"

namespace symm::detail {

using EnvMap = std::map<std::string, std::string, std::less<>>;
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

EnvLookup process_env();
EnvLookup env_lookup(const EnvMap& env);  // copies env

// Thrown where this process lacks what reading another's environment takes (a file
// descriptor, memory): its own limit, nothing the other process did.
class OutOfResourcesError : public Error {
 public:
  using Error::Error;
};

// The environment pid was started with. Throws symm::Error when it cannot be read, and
// OutOfResourcesError when this process cannot open it for want of resources.
EnvMap read_process_environ(pid_t pid);

// Parses a whole decimal integer ("12"; not "12x", "", or out of range).
std::optional<long long> parse_integer(std::string_view text);

// Parses a number of seconds from 0 to a week (kMaxTimeLimitMs), fractions allowed
// ("30", "0.5", "1e2"), in decimal only. A positive limit under a millisecond is refused:
// it would round to 0, which means no limit.
std::optional<std::chrono::milliseconds> parse_seconds(std::string_view text);

}  // namespace symm::detail
