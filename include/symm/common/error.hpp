#pragma once
// Errors carry context: which rank, which call, the CUDA/driver/system message, and
// what the user can do about it. Library code throws symm::Error; it never exit()s.
#include <cerrno>
#include <cstring>
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

// strerror(error), and where the process or the system has no file descriptor left, what
// to do about it (every open, socket, pipe, dup and accept can fail so).
inline std::string system_error_text(int error) {
  std::string text = std::strerror(error);
  if (error == EMFILE) text += " (this process has no file descriptor left: raise its limit, ulimit -n)";
  if (error == ENFILE) text += " (the system has no file descriptor left: close programs or raise fs.file-max)";
  return text;
}

// Whether a destructor runs because an exception is unwinding through its owner's scope:
// its owner recorded std::uncaught_exceptions() when constructed. Collective teardowns
// skip meeting their peers then (the peers of a failing rank may be anywhere).
inline bool unwinding_since(int exceptions_at_start) { return std::uncaught_exceptions() > exceptions_at_start; }

}  // namespace symm
