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

gemm::DeviceLimits limits_to_plan_for(std::string& said) {
  if (!no_gpu_message().empty()) {
    const gemm::DeviceLimits defaults;
    said = fmt::format("no GPU visible: planned for {} SMs and {} KiB of shared memory per block (an H100's or "
                       "H200's limits)",
                       defaults.sm_count, defaults.max_smem_per_block / 1024);
    return defaults;
  }
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  const gemm::DeviceLimits limits = gemm::query_device_limits(device);
  said = fmt::format("planned for GPU {} ({}, {} SMs)", device, prop.name, limits.sm_count);
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
  const gemm::DeviceLimits limits = limits_to_plan_for(said);
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
