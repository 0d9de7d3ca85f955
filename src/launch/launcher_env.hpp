#pragma once
// Recognising an external launcher (torchrun, Open MPI's mpirun, Slurm's srun) from
// the environment it gives each process, and naming the job so that its ranks, and
// only they, meet at the same rendezvous.
#include <optional>
#include <string>

#include "env.hpp"

namespace symm::detail {

struct LauncherInfo {
  std::string name;      // "torchrun", "Open MPI", "Slurm", for messages
  std::string job;       // the job as the launcher names it, for messages
  std::string identity;  // identical in every process of this job, different across jobs
  int rank = 0;
  int world = 1;
  int local_rank = 0;
  std::string other_hosts;  // non-empty when the job spans hosts: the evidence
};

// nullopt when no launcher started this process. Throws symm::Error when a launcher's
// variables are malformed or do not name the job well enough to keep two jobs apart.
// The innermost launcher wins (torchrun under srun, mpirun inside an allocation).
// SYMM_JOB_ID, when set, is added to the identity.
std::optional<LauncherInfo> detect_launcher(const EnvLookup& env);

// The peers check this process's job from /proc/<pid>/environ, the environment it was
// started with: throws symm::Error, saying to set them before the process starts, when
// the launcher variables in effect (`mine`) were changed inside it (setenv), which would
// make every peer refuse it. Where /proc cannot be read, nothing is checked.
void check_identity_as_peers_see_it(const LauncherInfo& mine);

}  // namespace symm::detail
