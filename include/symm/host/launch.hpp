#pragma once
// Launching ranks (docs/launch-model.md).
//
// A symm program's main() parses its options, then ends with
// symm::exit_with(symm::launch(...)) (or returns launch()'s code). Without an
// external launcher, launch() forks num_ranks ranks before any CUDA call and stays as
// their supervisor: it ends every rank when one fails, crashes or exceeds the time
// limit, names the failing rank and why, and returns the exit code for main(). Under
// torchrun, mpirun or srun it joins as the rank the launcher assigned, runs rank_main
// in this process and returns its code. A self-spawned rank never returns from
// launch(): it exits the process with rank_main's code (an uncaught exception is
// logged and gives code 1).
//
// Call launch() before creating threads or touching CUDA: it forks, and it waits for
// SIGCHLD/SIGINT/SIGTERM/SIGHUP with those signals blocked in the calling thread.
//
// Every rank sees SYMM_RANK, SYMM_WORLD and SYMM_LOCAL_RANK; its GPU is
// SYMM_LOCAL_RANK % count_visible_gpus() (ranks may outnumber GPUs).
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "symm/host/team.hpp"

namespace symm {

struct LaunchOptions {
  int num_ranks = 0;                        // 0: one rank per visible GPU (or the launcher's)
  // Time limit of a spawned job; none: SYMM_RANK_TIMEOUT_S, else no limit; 0: no limit.
  std::optional<std::chrono::milliseconds> rank_timeout;
  std::chrono::milliseconds kill_grace{3000};  // SIGTERM -> SIGKILL delay when ending ranks
  bool needs_gpu = true;                    // refuse to start when no GPU is visible
};

// Returns the process exit code: 0 when every rank succeeded; otherwise the failing
// rank's exit code, 128 + signal number, or 124 when the time limit was exceeded.
int launch(const LaunchOptions& options, const std::function<int(Team&)>& rank_main);

// Ends the process with launch()'s exit code: main() ends with exit_with(launch(...)).
// Where the job ended because this process was interrupted (SIGINT, SIGTERM or SIGHUP,
// code 128 + signal) and that signal's action is the default, the process ends by the
// signal itself, as a shell expects of an interrupted program: a loop or a script that
// runs it stops there too, instead of going on as after an ordinary failure.
[[noreturn]] void exit_with(int code);

// Number of GPUs visible to this process, counted without initialising CUDA
// (NVML through dlopen, honouring CUDA_VISIBLE_DEVICES); 0 when there is no driver.
int count_visible_gpus();

// Empty when this process sees a GPU (counted as count_visible_gpus does); otherwise the
// line symm::launch refuses with: "no GPU visible (<why>); this program needs ...". For
// programs that run on one GPU without launching ranks (symm-bench).
std::string no_gpu_message();

// The NVIDIA driver's version ("580.159.04") through NVML, without initialising CUDA;
// "unknown" when there is no driver.
std::string nvidia_driver_version();

}  // namespace symm
