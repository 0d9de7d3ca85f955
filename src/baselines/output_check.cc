#include "symm/baselines/output_check.hpp"

#include <fmt/format.h>

namespace symm::baselines {

std::string describe(const Mismatch& m, std::int64_t cols, const std::string& buffer) {
  return fmt::format("{} wrong elements of {}, first at row {} col {}: got {}, expected {}", m.wrong,
                     buffer, m.first / cols, m.first % cols, m.got, m.expected);
}

}  // namespace symm::baselines
