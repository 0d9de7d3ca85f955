#pragma once
// Errors carry context: which rank, which call, the CUDA/driver/system message, and
// what the user can do about it. Library code throws symm::Error; it never exit()s.
#include <exception>
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

// Whether a destructor runs because an exception is unwinding through its owner's scope:
// its owner recorded std::uncaught_exceptions() when constructed. Collective teardowns
// skip meeting their peers then (the peers of a failing rank may be anywhere).
inline bool unwinding_since(int exceptions_at_start) { return std::uncaught_exceptions() > exceptions_at_start; }

}  // namespace symm
