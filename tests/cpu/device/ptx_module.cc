#include "ptx_module.hpp"

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace symm::test {
namespace {

std::string trim(const std::string& line) {
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  const auto last = line.find_last_not_of(" \t\r");
  return line.substr(first, last - first + 1);
}

// The instruction on a line, or "" for directives, labels, braces, comments and blank
// lines. Inline asm blocks open with a brace on the instruction's line ("{neg.f16 ...").
std::string instruction_of(const std::string& line) {
  std::string text = trim(line);
  while (!text.empty() && text[0] == '{') text = trim(text.substr(1));
  if (text.empty() || text[0] == '.' || text[0] == '}' || text[0] == '(' || text[0] == ')' ||
      text.rfind("//", 0) == 0 || text.back() == ':') {
    return {};
  }
  return text;
}

}  // namespace

PtxModule PtxModule::load(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read PTX file " + path);
  // A function starts at ".entry name(" or ".func (...) name(", possibly after
  // .visible/.weak; everything up to the next such line belongs to it.
  static const std::regex header(R"(^\s*(?:\.\w+\s+)*\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+))");
  PtxModule module;
  PtxFunction* current = nullptr;
  std::string line;
  while (std::getline(file, line)) {
    std::smatch match;
    if (std::regex_search(line, match, header)) {
      current = &module.functions_[match[1]];
      continue;
    }
    std::string instruction = instruction_of(line);
    if (current != nullptr && !instruction.empty()) {
      current->instructions.push_back(std::move(instruction));
    }
  }
  if (module.functions_.empty()) throw std::runtime_error("no function found in " + path);
  return module;
}

const PtxFunction* PtxModule::find(const std::string& name) const {
  const auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

std::string mnemonic(const std::string& instruction) {
  std::string text = instruction;
  if (!text.empty() && text[0] == '@') text = trim(text.substr(text.find_first_of(" \t")));
  return text.substr(0, text.find_first_of(" \t;"));
}

std::vector<std::string> mnemonic_parts(const std::string& instruction) {
  std::vector<std::string> parts;
  std::stringstream stream(mnemonic(instruction));
  std::string part;
  while (std::getline(stream, part, '.')) parts.push_back(part);
  return parts;
}

}  // namespace symm::test
