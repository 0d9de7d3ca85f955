#pragma once
// A PTX file split into its functions (kernels and device functions), each as the list
// of its instruction lines, for tests that check what the compiler emitted.
#include <map>
#include <string>
#include <vector>

namespace symm::test {

struct PtxFunction {
  std::vector<std::string> instructions;  // trimmed lines, directives and labels dropped
};

class PtxModule {
 public:
  // Reads `path`; throws std::runtime_error when it cannot be read or has no function.
  static PtxModule load(const std::string& path);

  // The function of that name, or nullptr.
  const PtxFunction* find(const std::string& name) const;
  const std::map<std::string, PtxFunction>& functions() const { return functions_; }

 private:
  std::map<std::string, PtxFunction> functions_;
};

// The mnemonic of an instruction line ("atom.add.acquire.sys.s32" of
// "atom.add.acquire.sys.s32 %r1,[%rd1],%r2;"), without any predicate guard.
std::string mnemonic(const std::string& instruction);

// Its dot-separated parts: {"atom", "add", "acquire", "sys", "s32"}.
std::vector<std::string> mnemonic_parts(const std::string& instruction);

}  // namespace symm::test
