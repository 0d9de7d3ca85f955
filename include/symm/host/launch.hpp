#pragma once
// Launching ranks (docs/launch-model.md).
//
// A symm program's main() parses its options, then calls symm::launch(). Without an
// external launcher, launch() forks num_ranks ranks before any CUDA call and stays as
// their supervisor: it ends every rank when one fails, crashes or exceeds the time
// limit, names the failing rank, and returns the exit code for main(). Under torchrun,
// mpirun or srun it joins as the rank the launcher assigned and runs rank_main in this
// process. A rank never returns from launch() in spawn mode: it exits with rank_main's code.
#include <chrono>
#include <functional>
#include <string>

#include "symm/host/team.hpp"

namespace symm {

struct LaunchOptions {
  int num_ranks = 0;                         // 0: one rank per visible GPU
  std::chrono::seconds rank_timeout{0};      // 0: no limit on a rank's run time
  std::chrono::seconds kill_grace{3};        // SIGTERM -> SIGKILL delay when ending ranks
  bool needs_gpu = true;                     // refuse to start when no GPU is visible
  std::string program_name = "symm";        // used in messages
};

// Returns the process exit code (0 when every rank succeeded).
int launch(const LaunchOptions& options, const std::function<int(Team&)>& rank_main);

// Number of GPUs visible to this process, counted without initialising CUDA
// (NVML through dlopen, honouring CUDA_VISIBLE_DEVICES); 0 when there is no driver.
int count_visible_gpus();

}  // namespace symm
