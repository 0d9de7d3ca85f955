#pragma once
// Errors carry context: which rank, which call, the CUDA/driver/system message, and
// what the user can do about it. Library code throws symm::Error; it never exit()s.
#include <stdexcept>
#include <string>

namespace symm {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// Thrown when a bounded wait runs out (bootstrap collectives, supervisor, kernels).
class TimeoutError : public Error {
 public:
  using Error::Error;
};

}  // namespace symm
