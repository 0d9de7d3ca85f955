// Checks the PTX that the device API compiles to (probes.cu, built with the project's
// flags): every atomic (operation, type, order, scope) is one instruction with that
// order and scope, no compare-and-swap loop; hints, vectors, flags and barriers use the
// instructions docs/memory-model.md promises.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "probe_grid.hpp"
#include "ptx_module.hpp"

namespace symm::test {
namespace {

const PtxModule& release_ptx() {
  static const PtxModule module = PtxModule::load(SYMM_PROBES_PTX);
  return module;
}

const PtxModule& debug_ptx() {
  static const PtxModule module = PtxModule::load(SYMM_PROBES_DEBUG_PTX);
  return module;
}

struct Pair {
  std::string op, type;
};

#define SYMM_AS_PAIR(op, type) Pair{#op, #type},
const std::vector<Pair> kRmw = {SYMM_RMW_PAIRS(SYMM_AS_PAIR)};
const std::vector<Pair> kLoads = {SYMM_LOAD_PAIRS(SYMM_AS_PAIR)};
const std::vector<Pair> kStores = {SYMM_STORE_PAIRS(SYMM_AS_PAIR)};
#undef SYMM_AS_PAIR

const std::vector<std::string> kScopes = {"block", "device", "system"};

std::vector<std::string> orders_of(const std::string& op) {
  if (op == "load") return {"relaxed", "acquire"};
  if (op == "store") return {"relaxed", "release"};
  return {"relaxed", "acquire", "release", "acq_rel"};
}

std::string ptx_scope(const std::string& scope) {
  return scope == "block" ? "cta" : scope == "device" ? "gpu" : "sys";
}

int bits_of(const std::string& type) {
  return std::stoi(type.substr(type.find_first_of("0123456789")));
}

bool is_float(const std::string& type) { return type[0] == 'f' || type == "bf16"; }

// One expected instruction: its operation part and the type parts PTX accepts for it.
struct Expected {
  std::string ptx_op;                   // add, min, exch, cas, ... ("" for ld/st)
  std::set<std::string> ptx_types;      // any one of these
  std::string head = "atom";            // atom, ld or st
};

// The instructions PTX offers for (op, type), from the PTX ISA: integer add has no
// signed 64-bit form; min/max keep the signedness; float min/max go through the
// integer order (signed for the operation, unsigned for the mirrored one).
std::vector<Expected> expected_for(const std::string& op, const std::string& type) {
  const int bits = bits_of(type);
  const std::string n = std::to_string(bits);
  const std::set<std::string> raw = {"b" + n, "u" + n, "s" + n};
  if (op == "load") return {{"", raw, "ld"}};
  if (op == "store") return {{"", raw, "st"}};
  if (op == "cas") return {{"cas", {"b" + n}}};
  if (op == "xchg") return {{"exch", {"b" + n}}};
  if (op.rfind("bit_", 0) == 0) return {{op.substr(4), {"b" + n}}};
  if (op == "add" || op == "sub") {
    if (is_float(type)) return {{"add", {type}}};
    return {{"add", bits == 64 ? std::set<std::string>{"u64"} : raw}};
  }
  // min, max
  if (is_float(type)) {
    const std::string mirrored = op == "min" ? "max" : "min";
    return {{op, {"s" + n}}, {mirrored, {"u" + n}}};
  }
  return {{op, {std::string(1, type[0] == 'i' ? 's' : 'u') + n}}};
}

const std::set<std::string> kSems = {"relaxed", "acquire", "release", "acq_rel", "sc"};

bool has_sem(const std::vector<std::string>& parts) {
  return std::any_of(parts.begin(), parts.end(), [](const auto& p) { return kSems.count(p); });
}

// The instructions of `function` that carry a memory order (atom/red/ld/st.<sem>).
std::vector<std::vector<std::string>> ordered_accesses(const PtxFunction& function) {
  std::vector<std::vector<std::string>> found;
  for (const auto& instruction : function.instructions) {
    auto parts = mnemonic_parts(instruction);
    const std::string& head = parts[0];
    if ((head == "atom" || head == "red" || head == "ld" || head == "st") && has_sem(parts)) {
      found.push_back(std::move(parts));
    }
  }
  return found;
}

// True when `parts` is exactly head.op.sem.scope.type, in any order, plus the space
// (.global) and .noftz that some forms carry.
bool matches(const std::vector<std::string>& parts, const Expected& expected,
             const std::string& sem, const std::string& scope) {
  if (parts[0] != expected.head) return false;
  std::multiset<std::string> rest(parts.begin() + 1, parts.end());
  rest.erase("global");
  rest.erase("noftz");
  for (const auto& type : expected.ptx_types) {
    std::multiset<std::string> want = {sem, scope, type};
    if (!expected.ptx_op.empty()) want.insert(expected.ptx_op);
    if (rest == want) return true;
  }
  return false;
}

std::string joined(const std::vector<std::vector<std::string>>& accesses) {
  std::string text;
  for (const auto& parts : accesses) {
    for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? "." : "") + parts[i];
    text += "  ";
  }
  return text;
}

void check_atomic_grid(const std::vector<Pair>& grid) {
  int checked = 0;
  for (const auto& [op, type] : grid) {
    for (const auto& order : orders_of(op)) {
      for (const auto& scope : kScopes) {
        const std::string name = "probe_" + op + "_" + type + "_" + order + "_" + scope;
        const PtxFunction* function = release_ptx().find(name);
        ASSERT_NE(function, nullptr) << name << " missing from " << SYMM_PROBES_PTX;
        const auto accesses = ordered_accesses(*function);
        const auto expected = expected_for(op, type);
        // Exactly the expected instructions: one per Expected (a CAS loop adds more).
        EXPECT_EQ(accesses.size(), expected.size()) << name << ": " << joined(accesses);
        for (const auto& want : expected) {
          EXPECT_TRUE(std::any_of(accesses.begin(), accesses.end(),
                                  [&](const auto& parts) {
                                    return matches(parts, want, order, ptx_scope(scope));
                                  }))
              << name << ": expected " << want.head << "." << want.ptx_op << "." << order << "."
              << ptx_scope(scope) << ", found " << joined(accesses);
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(DevicePtx, EveryReadModifyWriteIsOneInstructionWithItsOrderAndScope) {
  check_atomic_grid(kRmw);
}

TEST(DevicePtx, EveryOrderedLoadIsOneLdWithItsOrderAndScope) { check_atomic_grid(kLoads); }

TEST(DevicePtx, EveryOrderedStoreIsOneStWithItsOrderAndScope) { check_atomic_grid(kStores); }

TEST(DevicePtx, ReleaseBuildsHaveNoScopeChecks) {
  if (SYMM_PROBES_HAVE_DEBUG_CHECKS) GTEST_SKIP() << "this build type defines SYMM_DEBUG";
  int inspected = 0;
  for (const auto& [name, function] : release_ptx().functions()) {
    if (name.rfind("probe_", 0) != 0 || name.find("wait") != std::string::npos ||
        name.find("barrier") != std::string::npos) {
      continue;  // waits keep their timeout trap in every build
    }
    ++inspected;
    for (const auto& instruction : function.instructions) {
      EXPECT_NE(mnemonic(instruction), "trap") << name;
    }
  }
  EXPECT_GT(inspected, 0) << "no probe function found in the PTX: nothing was checked";
}

// Debug builds add a device-side report (printf + trap) for a narrow scope on a peer
// address: one more report than the same operation at system scope has.
int reports(const PtxFunction& function) {
  return static_cast<int>(std::count_if(
      function.instructions.begin(), function.instructions.end(),
      [](const std::string& i) { return i.rfind("vprintf", 0) == 0; }));
}

TEST(DevicePtx, DebugBuildsCheckTheScopeOfPeerOperations) {
  for (const auto& [op, type] : kRmw) {
    const std::string stem = "probe_" + op + "_" + type + "_relaxed_";
    const PtxFunction* system = debug_ptx().find(stem + "system");
    ASSERT_NE(system, nullptr) << stem << "system";
    for (const std::string narrow : {"block", "device"}) {
      const PtxFunction* function = debug_ptx().find(stem + narrow);
      ASSERT_NE(function, nullptr) << stem << narrow;
      EXPECT_EQ(reports(*function), reports(*system) + 1) << stem << narrow;
    }
  }
}

}  // namespace
}  // namespace symm::test
