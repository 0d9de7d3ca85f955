// The Iris example-10 hang, designed out: a GEMM + all-scatter program started by an
// external launcher (torchrun, mpirun) must join its ranks, never spawn its own on top
// (N x N processes fighting over one rendezvous). Runs the real program; no GPU needed,
// as the refusal comes before any CUDA call.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "run_program.hpp"

namespace {

using symm::test::ProgramOutcome;

ProgramOutcome run_program(const std::vector<std::string>& args, const std::vector<std::string>& extra_env) {
  return symm::test::run_program(SYMM_ALL_SCATTER_PROGRAM, args, extra_env);
}

std::vector<std::string> torchrun_rank(int rank, int world) {
  return {"RANK=" + std::to_string(rank), "WORLD_SIZE=" + std::to_string(world),
          "LOCAL_RANK=" + std::to_string(rank), "LOCAL_WORLD_SIZE=" + std::to_string(world),
          "MASTER_ADDR=127.0.0.1", "MASTER_PORT=29500",
          "TORCHELASTIC_RUN_ID=all-scatter-test-" + std::to_string(::getpid())};
}

TEST(GemmAllScatterLauncher, RefusesToSpawnItsOwnRanksUnderTorchrun) {
  // What Iris's benchmark did under `torchrun --nproc_per_node=2`: each process started
  // ranks of its own. Both must refuse, naming the N x N processes, before any GPU work.
  for (int rank = 0; rank < 2; ++rank) {
    const ProgramOutcome out = run_program({"-r", "4", "-o", ""}, torchrun_rank(rank, 2));
    EXPECT_EQ(out.exit_code, 1) << out.output;
    EXPECT_NE(out.output.find("refusing to spawn 4 ranks (-r 4)"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("2 x 4 = 8 processes"), std::string::npos) << out.output;
    EXPECT_EQ(out.output.find("GPU 0"), std::string::npos) << "no rank may reach the GPU: " << out.output;
  }
}

TEST(GemmAllScatterLauncher, RefusesToSpawnItsOwnRanksUnderMpirun) {
  const ProgramOutcome out = run_program({"-r", "4", "-o", ""},
                                  {"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=2",
                                   "OMPI_COMM_WORLD_LOCAL_RANK=0", "OMPI_COMM_WORLD_LOCAL_SIZE=2",
                                   "OMPI_MCA_ess_base_jobid=4242"});
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("refusing to spawn 4 ranks (-r 4)"), std::string::npos) << out.output;
}

}  // namespace
