#pragma once
// The GEMM + all-scatter programs (Iris examples 07, 10, 11, 12) share one driver: the
// command line, the ranks, validation against cuBLAS, timing beside gemm_alone and the
// baselines, the table and the JSON file. A program is its name and default variant:
//
//   int main(int argc, char** argv) {
//     return symm::examples::gemm_all_scatter::run(argc, argv, {"07_gemm_all_scatter",
//         "GEMM + all-scatter, ...", symm::ops::ScatterVariant::fused_sequential});
//   }
#include <string>

#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::examples::gemm_all_scatter {

struct Program {
  std::string name;             // "10_gemm_all_scatter_wg_specialization": JSON file, tables
  std::string summary;          // one line for --help
  ops::ScatterVariant variant;  // the default of --variant
};

// Parses the command line, launches the ranks and measures; returns main()'s exit code:
// 0, 1 when a validation failed or a rank failed, 2 for a bad command line.
int run(int argc, char** argv, const Program& program);

}  // namespace symm::examples::gemm_all_scatter
