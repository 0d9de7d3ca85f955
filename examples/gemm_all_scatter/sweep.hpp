#pragma once
// A sweep: every point of a preset (sweep_preset.hpp), world by world, with one launch of
// the ranks per rank count; each point is measured as a program run measures its one
// (point.hpp), appended to the sweep file as soon as it is done (sweep_file.hpp), and
// skipped, with the reason recorded, where it cannot run (sweep_rules.hpp).
//
//   10_gemm_all_scatter_wg_specialization --preset bench/presets/default.json -o out/default.jsonl
//
// Run again with the same file, a sweep resumes: finished points are not redone; skipped
// ones are tried again (the machine may have grown). When a rank dies during a point (a
// trap, a crash), that point is recorded as failed and the ranks are launched again for
// the points left; Ctrl-C or a time limit stops the sweep, and the interrupted point is
// measured again on resume.
#include "command_line.hpp"
#include "driver.hpp"

namespace symm::examples::gemm_all_scatter {

// Returns main()'s exit code: 0 when every point of this run (-r: of that rank count) ran
// or was skipped and all passed validation, 1 when one failed, the launch's code when the
// sweep was interrupted. A bad preset or -o was refused before, by parse (exit code 2).
int run_sweep(const Program& program, const CommandLine& cl, int argc, char** argv);

}  // namespace symm::examples::gemm_all_scatter
