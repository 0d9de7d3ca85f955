#pragma once
// Launch glue of the fused kernel for one (dtype, B layout): the configuration and the
// hook of the variant select the instance.
#include <string>

#include "configs.hpp"
#include "fused_kernel.cuh"
#include "launch.hpp"
#include "symm/gemm/launch.cuh"

namespace symm::ops::detail {

// The plan (configs.hpp) gives split tiles only to the variants whose hooks finish them.
static_assert(TmaPushHook::kWholeTiles == !finishes_split_tiles(ScatterVariant::tma_push));
static_assert(TileFlagHook::kWholeTiles == !finishes_split_tiles(ScatterVariant::wg_specialization) &&
              TileFlagHook::kWholeTiles == !finishes_split_tiles(ScatterVariant::producer_consumer));
static_assert(CopyToPeersHook::kWholeTiles == !finishes_split_tiles(ScatterVariant::fused_sequential));

template <class Cfg, class In, gemm::BLayout BL, class Hook>
void launch_with_hook(const FusedLaunch& f, const Hook& hook, cudaStream_t stream) {
  if (Hook::kWholeTiles && (f.params.sched.k_splits != 1 || f.params.sched.stream_k()))
    throw Error("symm gemm_all_scatter: " + std::string(to_string(f.variant)) +
                " computes whole tiles; the plan splits K (" + gemm::decomposition(f.params.sched) + ")");
  auto l = gemm::grid_launch<Cfg>(fused_gemm_kernel<Cfg, In, BL, Hook>, f.grid, stream);
  if (f.check_residency)  // comm blocks wait for GEMM blocks: all must be resident
    l.require_resident(f.sm_count, "symm gemm_all_scatter: " + std::string(to_string(f.variant)),
                       "give fewer blocks (--num_sms / num_sms)");
  l.launch("cudaLaunchKernelEx(fused_gemm_kernel)", f.params, hook, f.push, f.gemm_blocks);
}

template <gemm::DType DT, gemm::BLayout BL>
void launch_fused_typed(const FusedLaunch& f, cudaStream_t stream) {
  using In = gemm::element_t<DT>;
  bool built = false;
  switch (f.variant) {
    case ScatterVariant::tma_push:
      built = gemm::with_config<PushConfigs>(f.config, [&]<class Cfg>() {
        launch_with_hook<Cfg, In, BL>(f, TmaPushHook{{f.push.trace}, f.peer_maps}, stream);
      });
      break;
    case ScatterVariant::fused_sequential:
      built = gemm::with_config<PublishConfigs>(f.config, [&]<class Cfg>() {
        launch_with_hook<Cfg, In, BL>(f, CopyToPeersHook{{f.push.trace}, f.push.targets}, stream);
      });
      break;
    case ScatterVariant::wg_specialization:
    case ScatterVariant::producer_consumer:
      built = gemm::with_config<PublishConfigs>(f.config, [&]<class Cfg>() {
        launch_with_hook<Cfg, In, BL>(f, TileFlagHook{{f.push.trace}, f.push.tile_flags}, stream);
      });
      break;
    case ScatterVariant::bulk_synchronous:
      throw Error("symm gemm_all_scatter: bulk_synchronous runs the plain GEMM, not a fused kernel");
  }
  if (!built)  // the plan refuses it first (configs.hpp: built_for)
    throw Error("symm gemm_all_scatter: configuration " + gemm::to_string(f.config) + " is not built for " +
                std::string(to_string(f.variant)) + " with B as " + std::string(gemm::to_string(BL)));
}

}  // namespace symm::ops::detail
