#pragma once
// The figures a Session collected, and what is made of them: tables on rank 0's
// terminal and the JSON results file (report.cc).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "example.hpp"

namespace symm::examples {

struct Records {
  struct Entry {
    Figure figure;
    CrossRankSummary timing;  // empty for ratios
  };

  Records(int argc, char** argv) : argc(argc), argv(argv) {}

  // numerator / denominator for each pair of figures with the same size and ranks.
  std::vector<Entry> ratios() const;
  void print(const Spec& spec) const;
  void write(const std::string& path, const Runtime& rt, const Spec& spec) const;

  std::vector<Entry> figures;
  std::vector<std::pair<std::string, std::string>> comparisons;
  struct {
    std::uint64_t checks = 0, failures = 0;
  } validation;
  int argc;
  char** argv;
};

}  // namespace symm::examples
