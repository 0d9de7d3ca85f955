// Collective setup steps: every rank learns whether a step succeeded on all ranks.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <string>

#include "heap_mapping.hpp"

namespace symm {
namespace {

// Fixed size, so all_gather's equal-size rule holds whatever the message.
struct StepStatus {
  char failed = 0;
  std::array<char, 511> reason{};
};

}  // namespace

void run_on_every_rank(Team& team, std::string_view what, const std::function<void()>& step) {
  StepStatus mine;
  try {
    step();
  } catch (const std::exception& e) {
    mine.failed = 1;
    const std::string_view reason = e.what();
    std::memcpy(mine.reason.data(), reason.data(), std::min(reason.size(), mine.reason.size() - 1));
  }
  const auto gathered = team.all_gather(std::as_bytes(std::span(&mine, 1)));
  std::string failures;
  for (int r = 0; r < team.world(); ++r) {
    StepStatus status;
    std::memcpy(&status, gathered.data() + r * sizeof(StepStatus), sizeof(StepStatus));
    if (!status.failed) continue;
    status.reason.back() = '\0';
    std::string_view reason = status.reason.data();
    const std::string prefix = fmt::format("rank {}: ", r);  // checked calls name the rank
    if (reason.starts_with(prefix)) reason.remove_prefix(prefix.size());
    failures += fmt::format("{}{}{}", failures.empty() ? "" : "; ", prefix, reason);
  }
  if (!failures.empty()) throw SetupStepFailed(fmt::format("{} failed ({})", what, failures));
}

}  // namespace symm
