// symm-gpus: prints how many GPUs a symm program started here would see, and exits 0;
// with none, says why (as the programs do) and exits 1. For scripts: scripts/main-job.sh
// and `make run` ask it rather than nvidia-smi, which ignores CUDA_VISIBLE_DEVICES.
#include <fmt/format.h>

#include "symm/host/launch.hpp"

int main() {
  if (const std::string why = symm::no_gpu_message(); !why.empty()) {
    fmt::print(stderr, "symm: {}\n", why);
    return 1;
  }
  fmt::print("{}\n", symm::count_visible_gpus());
  return 0;
}
