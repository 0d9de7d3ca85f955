// Recognising external launchers from their environment, and counting visible GPUs.
#include <gtest/gtest.h>

#include "env.hpp"
#include "gpu_count.hpp"
#include "launcher_env.hpp"
#include "scoped_env.hpp"
#include "symm/common/error.hpp"
#include "symm/host/launch.hpp"

namespace {

using symm::detail::detect_launcher;
using symm::detail::env_lookup;
using symm::detail::EnvMap;

std::optional<symm::detail::LauncherInfo> detect(const EnvMap& env) { return detect_launcher(env_lookup(env)); }

EnvMap torchrun_env(int rank, int world, const std::string& port = "29500") {
  return {{"RANK", std::to_string(rank)},       {"WORLD_SIZE", std::to_string(world)},
          {"LOCAL_RANK", std::to_string(rank)}, {"LOCAL_WORLD_SIZE", std::to_string(world)},
          {"MASTER_ADDR", "127.0.0.1"},         {"MASTER_PORT", port},
          {"TORCHELASTIC_RUN_ID", "none"},      {"TORCHELASTIC_RESTART_COUNT", "0"}};
}

TEST(DetectLauncher, NoneInAPlainEnvironment) {
  EXPECT_FALSE(detect({{"HOME", "/root"}, {"PATH", "/bin"}}));
  // A batch script (sbatch, salloc) is not a task started by srun: no SLURM_STEP_ID.
  EXPECT_FALSE(detect({{"SLURM_JOB_ID", "7"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}, {"SLURM_LOCALID", "0"}}));
}

TEST(DetectLauncher, Torchrun) {
  auto info = detect(torchrun_env(1, 4));
  ASSERT_TRUE(info);
  EXPECT_EQ(info->name, "torchrun");
  EXPECT_EQ(info->rank, 1);
  EXPECT_EQ(info->world, 4);
  EXPECT_EQ(info->local_rank, 1);
  EXPECT_TRUE(info->other_hosts.empty());
  EXPECT_NE(info->job.find("29500"), std::string::npos);
}

TEST(DetectLauncher, SameJobSameIdentityAndOtherJobsDiffer) {
  EXPECT_EQ(detect(torchrun_env(0, 4))->identity, detect(torchrun_env(3, 4))->identity);
  EXPECT_NE(detect(torchrun_env(0, 4, "29500"))->identity, detect(torchrun_env(0, 4, "29501"))->identity);
  auto restarted = torchrun_env(0, 4);
  restarted["TORCHELASTIC_RESTART_COUNT"] = "1";
  EXPECT_NE(detect(restarted)->identity, detect(torchrun_env(0, 4))->identity);
  auto tagged = torchrun_env(0, 4);
  tagged["SYMM_JOB_ID"] = "a";
  EXPECT_NE(detect(tagged)->identity, detect(torchrun_env(0, 4))->identity);
}

TEST(DetectLauncher, OpenMpi) {
  EnvMap env{{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "3"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "2"},
             {"OMPI_COMM_WORLD_LOCAL_SIZE", "3"}, {"OMPI_MCA_ess_base_jobid", "123456"}};
  auto info = detect(env);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->name, "Open MPI");
  EXPECT_EQ(info->rank, 2);
  EXPECT_EQ(info->world, 3);
  EXPECT_EQ(info->job, "123456");
  env["PMIX_NAMESPACE"] = "prterun-host-99@1";  // Open MPI 5 names the job by namespace
  EXPECT_EQ(detect(env)->job, "prterun-host-99@1");
}

TEST(DetectLauncher, Slurm) {
  EnvMap env{{"SLURM_PROCID", "1"}, {"SLURM_LOCALID", "1"}, {"SLURM_STEP_ID", "0"}, {"SLURM_STEP_NUM_TASKS", "2"},
             {"SLURM_NTASKS", "8"}, {"SLURM_JOB_ID", "4242"}, {"SLURM_STEP_NUM_NODES", "1"}};
  auto info = detect(env);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->name, "Slurm");
  EXPECT_EQ(info->world, 2) << "the step's task count, not the allocation's";
  EXPECT_EQ(info->job, "4242.0");
  EXPECT_TRUE(info->other_hosts.empty());
}

TEST(DetectLauncher, InnermostLauncherWins) {
  EnvMap env = torchrun_env(1, 2);  // torchrun started by srun inside an allocation
  env.insert({{"SLURM_PROCID", "0"}, {"SLURM_STEP_ID", "3"}, {"SLURM_NTASKS", "1"}, {"SLURM_JOB_ID", "9"}});
  EXPECT_EQ(detect(env)->name, "torchrun");
  EnvMap mpi{{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_MCA_ess_base_jobid", "5"},
             {"SLURM_PROCID", "0"}, {"SLURM_STEP_ID", "0"}, {"SLURM_NTASKS", "1"}, {"SLURM_JOB_ID", "9"}};
  EXPECT_EQ(detect(mpi)->name, "Open MPI");
}

TEST(DetectLauncher, SeesJobsSpanningHosts) {
  auto torch = torchrun_env(0, 8);
  torch["LOCAL_WORLD_SIZE"] = "4";
  EXPECT_NE(detect(torch)->other_hosts.find("LOCAL_WORLD_SIZE=4"), std::string::npos);
  EnvMap mpi{{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
             {"OMPI_MCA_ess_base_jobid", "5"}};
  EXPECT_FALSE(detect(mpi)->other_hosts.empty());
  EnvMap slurm{{"SLURM_PROCID", "0"}, {"SLURM_STEP_ID", "0"}, {"SLURM_NTASKS", "4"}, {"SLURM_JOB_ID", "9"},
               {"SLURM_NNODES", "2"}};
  EXPECT_NE(detect(slurm)->other_hosts.find("SLURM_NNODES=2"), std::string::npos);
}

TEST(DetectLauncher, RejectsMalformedVariables) {
  auto bad_rank = torchrun_env(0, 4);
  bad_rank["RANK"] = "4";
  EXPECT_THROW(detect(bad_rank), symm::Error);
  auto not_a_number = torchrun_env(0, 4);
  not_a_number["WORLD_SIZE"] = "four";
  EXPECT_THROW(detect(not_a_number), symm::Error);
  // A local size that is no number is said to be one, not taken for a job on other hosts.
  auto bad_local = torchrun_env(0, 4);
  bad_local["LOCAL_WORLD_SIZE"] = "4x";
  try {
    detect(bad_local);
    ADD_FAILURE() << "LOCAL_WORLD_SIZE=4x was accepted";
  } catch (const symm::Error& e) {
    EXPECT_NE(std::string(e.what()).find("LOCAL_WORLD_SIZE=4x, which is not an integer"), std::string::npos)
        << e.what();
  }
}

TEST(DetectLauncher, DemandsAJobIdentity) {
  // RANK/WORLD_SIZE alone cannot tell two jobs apart; SYMM_JOB_ID can.
  EnvMap bare{{"RANK", "0"}, {"WORLD_SIZE", "2"}};
  try {
    detect(bare);
    FAIL() << "accepted a launcher environment without a job identity";
  } catch (const symm::Error& e) {
    EXPECT_NE(std::string(e.what()).find("SYMM_JOB_ID"), std::string::npos) << e.what();
  }
  bare["SYMM_JOB_ID"] = "my-job";
  EXPECT_EQ(detect(bare)->job, "my-job");
  EXPECT_THROW(detect({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}}), symm::Error);
}

TEST(VisibleDevices, FollowsCudaRules) {
  using symm::detail::visible_device_count;
  EXPECT_EQ(visible_device_count(std::nullopt, 4), 4);
  EXPECT_EQ(visible_device_count(std::nullopt, 0), 0);
  EXPECT_EQ(visible_device_count("", 4), 0);
  EXPECT_EQ(visible_device_count("-1", 4), 0);
  EXPECT_EQ(visible_device_count("0,1", 4), 2);
  EXPECT_EQ(visible_device_count("2", 4), 1);
  EXPECT_EQ(visible_device_count("0,7,1", 4), 1) << "enumeration stops at the first invalid entry";
  EXPECT_EQ(visible_device_count("1,1", 4), 1) << "a repeated index is invalid";
  EXPECT_EQ(visible_device_count("0,1,2,3,4,5", 2), 2);
  EXPECT_EQ(visible_device_count("GPU-8d3f6a2c-aaaa,GPU-1234", 2), 2);
  EXPECT_EQ(visible_device_count("GPU-8d3f6a2c-aaaa,GPU-1234,GPU-5678", 2), 2) << "capped at the driver's count";
  EXPECT_EQ(visible_device_count("0", 0), 0);
}

TEST(VisibleDevices, CountingNeverFails) {
  // Without a driver (CI) this is 0; on a GPU machine, the GPUs CUDA would see.
  const auto count = symm::detail::count_gpus();
  EXPECT_GE(count.visible, 0);
  EXPECT_LE(count.visible, count.driver);
  EXPECT_EQ(count.visible == 0, !count.why_none.empty());
  // An empty mask hides every GPU, on a GPU machine too, and says why.
  ScopedEnv hidden("CUDA_VISIBLE_DEVICES", "");
  const auto none = symm::detail::count_gpus();
  EXPECT_EQ(none.visible, 0);
  EXPECT_FALSE(none.why_none.empty());
}

}  // namespace
