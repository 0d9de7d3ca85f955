// `symm-bench gemm --plans` (plan_listing.hpp).
#include "plan_listing.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "symm/common/error.hpp"
#include "symm/gemm/gemm.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/launch.hpp"

namespace symm::bench {
namespace {

// Where the planner looks at operands: their alignment only (cudaMalloc's 256 bytes).
void* placeholder(int index) { return reinterpret_cast<void*>(std::uintptr_t(index + 1) << 32); }

// The named GPU's limits: an H200's are DeviceLimits' defaults.
gemm::DeviceLimits named_limits(const std::string& gpu) {
  return gpu == "h100" ? gemm::h100_sxm_limits() : gemm::DeviceLimits{};
}

gemm::DeviceLimits limits_to_plan_for(const std::string& plans_for, std::string& said) {
  const bool no_gpu = !no_gpu_message().empty();
  if (no_gpu || !plans_for.empty()) {
    const std::string gpu = plans_for.empty() ? "h200" : plans_for;
    const gemm::DeviceLimits limits = named_limits(gpu);
    said = fmt::format("{}planned for an {}'s limits: {} SMs, {} KiB of shared memory per block, {:.2f} TB/s",
                       no_gpu ? "no GPU visible: " : "", gpu == "h100" ? "H100" : "H200", limits.sm_count,
                       limits.max_smem_per_block / 1024, limits.memory_bytes_per_s / 1e12);
    return limits;
  }
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  const gemm::DeviceLimits limits = gemm::query_device_limits(device);
  said = fmt::format("planned for GPU {} ({}, {} SMs, {:.2f} TB/s)", device, prop.name, limits.sm_count,
                     limits.memory_bytes_per_s / 1e12);
  return limits;
}

std::string schedule_text(const gemm::Plan& plan) {
  const std::string split = plan.sched.stream_k() ? "stream-K" : fmt::format("k_splits={}", plan.sched.k_splits);
  const std::string copies = plan.copies.describe();
  return fmt::format("{} {} blocks={}{}", to_string(plan.config), split, plan.num_blocks,
                     copies.empty() ? "" : "; " + copies);
}

}  // namespace

int print_plans(const GemmBenchOptions& o) {
  std::string said;
  const gemm::DeviceLimits limits = limits_to_plan_for(o.plans_for, said);
  fmt::print("symm-bench gemm --plans: {}\n", said);
  const bool nk = o.layout == gemm::BLayout::nk;
  for (const GemmShape& s : o.shapes)
    for (gemm::DType dtype : o.dtypes) {
      const gemm::GemmProblem p{s.m,   s.n,  s.k,      placeholder(0), s.k, placeholder(1), nk ? s.k : s.n,
                                o.layout, placeholder(2), s.n, dtype,  dtype};
      gemm::Plan plan;
      try {
        plan = gemm::make_plan(p, o.gemm, limits);
      } catch (const Error& e) {  // the options rule this problem out: bad input, as for a run
        fmt::print(stderr, "symm-bench: {}\n", e.what());
        return 2;
      }
      fmt::print("\n{} x {} x {} {}, B {}\n  plan: {}\n", s.m, s.n, s.k, to_string(dtype), to_string(o.layout),
                 gemm::describe(p, plan));
      if (!o.tune || plan.kind != gemm::KernelKind::wgmma) continue;
      const auto candidates = gemm::candidate_plans(p, o.gemm, limits, gemm::kTuneCandidates);
      fmt::print("  tune times {} candidates (predicted time over the plan's):\n", candidates.size());
      for (std::size_t i = 0; i < candidates.size(); ++i)
        fmt::print("    {}. {:.3f}  {}\n", i + 1, candidates[i].model_cost / plan.model_cost,
                   schedule_text(candidates[i]));
    }
  return 0;
}

}  // namespace symm::bench
