// Checks the PTX of data movement, flags and barriers (probes.cu): cache hints become
// their ld/st qualifiers, 16-byte accesses are single vector instructions, signals are
// release stores or reductions at system scope, waits poll relaxed and acquire once.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "ptx_module.hpp"

namespace symm::test {
namespace {

struct Rule {
  std::string probe;
  std::vector<std::string> required;   // regexes: each must be found in some instruction
  std::vector<std::string> forbidden;  // regexes: none may be found in any instruction
};

const std::vector<Rule> kRules = {
    {"probe_load_normal", {R"(^ld(\.global)?\.u32)"}, {R"(\.(cg|cs|cv)\b)", "volatile"}},
    {"probe_load_l2_only", {R"(^ld\.global\.cg\.u32)"}, {}},
    {"probe_load_streaming", {R"(^ld\.global\.cs\.u32)"}, {}},
    {"probe_load_refetch", {R"(^ld\.global\.cv\.u32)"}, {}},
    {"probe_load_volatile_", {R"(^ld\.volatile(\.global)?\.u32)"}, {}},
    {"probe_load_vec16_normal", {R"(^ld(\.global)?\.v4\.[bfu]32)"}, {R"(\.(cg|cs|cv)\b)"}},
    {"probe_load_vec16_l2_only", {R"(^ld\.global\.cg\.v4\.[bfu]32)"}, {}},
    {"probe_load_vec16_streaming", {R"(^ld\.global\.cs\.v4\.[bfu]32)"}, {}},
    {"probe_load_vec16_refetch", {R"(^ld\.global\.cv\.v4\.[bfu]32)"}, {}},
    {"probe_load_vec16_volatile_", {R"(^ld\.volatile\.global\.v4\.b32)"}, {}},
    {"probe_store_normal", {R"(^st(\.global)?\.u32)"}, {R"(^st\S*\.(cg|cs|wt)\b)"}},
    {"probe_store_l2_only", {R"(^st\.global\.cg\.u32)"}, {}},
    {"probe_store_streaming", {R"(^st\.global\.cs\.u32)"}, {}},
    {"probe_store_write_through", {R"(^st\.global\.wt\.u32)"}, {}},
    {"probe_store_vec16_normal", {R"(^st(\.global)?\.v4\.[bfu]32)"}, {R"(^st\S*\.(cg|cs|wt)\b)"}},
    {"probe_store_vec16_l2_only", {R"(^st\.global\.cg\.v4\.[bfu]32)"}, {}},
    {"probe_store_vec16_streaming", {R"(^st\.global\.cs\.v4\.[bfu]32)"}, {}},
    {"probe_store_vec16_write_through", {R"(^st\.global\.wt\.v4\.[bfu]32)"}, {}},
    // Cooperative moves: 16-byte vectors in the body, elements at the ragged edge.
    {"probe_put_range_block",
     {R"(^ld(\.global)?\.v4\.[bfu]32)", R"(^st(\.global)?\.v4\.[bfu]32)", R"(^ld(\.global)?\.f32)"},
     {}},
    {"probe_get_tile_warp",
     {R"(^ld\.global\.cg\.v4\.[bfu]32)", R"(^st(\.global)?\.v4\.[bfu]32)", R"(^ld\.global\.cg\.u16)"},
     {}},
    // Flags: release at system scope by default; red never waits for a reply.
    {"probe_signal_set", {R"(^st\.release\.sys(\.global)?\.b64)"}, {"^atom"}},
    {"probe_signal_add", {R"(^red\.release\.sys\.global\.add\.u64)"}, {"^atom"}},
    {"probe_signal_add_relaxed_device", {R"(^red\.relaxed\.gpu\.global\.add\.u64)"}, {}},
    // Waits: relaxed polls, one acquire fence, a clock for the budget, a report.
    {"probe_wait_at_least",
     {R"(^ld\.relaxed\.sys(\.global)?\.b64)", R"(^fence\.acq_rel\.sys)", "%globaltimer"},
     {R"(^ld\.acquire)"}},
    {"probe_wait_equal_relaxed",
     {R"(^ld\.relaxed\.sys(\.global)?\.b64)", "%globaltimer"},
     {"^fence"}},
    {"probe_wait_at_least_device",
     {R"(^ld\.relaxed\.gpu(\.global)?\.b64)", R"(^fence\.acq_rel\.gpu)"},
     {R"(^fence\.acq_rel\.sys)"}},
    {"report_wait_timeout", {"^vprintf", "^trap"}, {}},
    // Barriers: block barrier, release to every rank, bounded acquire.
    {"probe_barrier_block",
     {R"(^bar\.sync)", R"(^st\.release\.sys(\.global)?\.b64)", R"(^ld\.relaxed\.sys(\.global)?\.b64)",
      R"(^fence\.acq_rel\.sys)"},
     {}},
    {"probe_barrier_grid",
     {R"(^bar\.sync)", R"(^atom\.add\.acq_rel\.sys\.u64)", R"(^st\.release\.sys(\.global)?\.b64)",
      R"(^fence\.acq_rel\.sys)"},
     {}},
};

// Names the test after its probe instead of dumping the struct's bytes.
void PrintTo(const Rule& rule, std::ostream* out) { *out << rule.probe; }

// The function whose name contains `probe` (report_wait_timeout is a mangled name).
const PtxFunction* find_containing(const PtxModule& module, const std::string& probe) {
  if (const PtxFunction* exact = module.find(probe)) return exact;
  for (const auto& [name, function] : module.functions()) {
    if (name.find(probe) != std::string::npos) return &function;
  }
  return nullptr;
}

class DevicePtxMovement : public testing::TestWithParam<Rule> {};

TEST_P(DevicePtxMovement, EmitsTheExpectedInstructions) {
  static const PtxModule module = PtxModule::load(SYMM_PROBES_PTX);
  const Rule& rule = GetParam();
  const PtxFunction* function = find_containing(module, rule.probe);
  ASSERT_NE(function, nullptr) << rule.probe << " missing from " << SYMM_PROBES_PTX;
  const auto any = [&](const std::string& pattern) {
    const std::regex re(pattern);
    return std::any_of(function->instructions.begin(), function->instructions.end(),
                       [&](const std::string& i) { return std::regex_search(i, re); });
  };
  for (const auto& pattern : rule.required) EXPECT_TRUE(any(pattern)) << rule.probe << ": " << pattern;
  for (const auto& pattern : rule.forbidden) EXPECT_FALSE(any(pattern)) << rule.probe << ": " << pattern;
}

INSTANTIATE_TEST_SUITE_P(Probes, DevicePtxMovement, testing::ValuesIn(kRules),
                         [](const testing::TestParamInfo<Rule>& info) {
                           return info.param.probe;
                         });

}  // namespace
}  // namespace symm::test
