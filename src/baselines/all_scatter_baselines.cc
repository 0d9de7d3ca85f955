// The factory: decides, the same way on every rank, which baselines can run, and builds
// them around one shared barrier and one set of scratch operands for their timings.
#include "symm/baselines/all_scatter_baselines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <span>

#include "copy_engine_baselines.hpp"
#include "gpu_identity.hpp"
#include "shard_geometry.hpp"
#include "skip_reasons.hpp"
#include "symm/common/error.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/heap.hpp"
#include "symm/host/runtime.hpp"
#include "tuning_operands.hpp"

#if SYMM_HAVE_NCCL
#include "nccl_all_gather.hpp"
#include "nccl_check.hpp"
#endif

namespace symm::baselines {
namespace {

// The same answer on every rank (rank_gpus() is the same everywhere).
NcclSituation nccl_situation(const Runtime& rt) {
  NcclSituation s;
  s.shared_gpu = describe_shared_gpu(rt.rank_gpus());
#if SYMM_HAVE_NCCL
  s.found_at_configure = true;
  check_nccl(ncclGetVersion(&s.library_version), "ncclGetVersion");
#endif
  return s;
}

}  // namespace

std::vector<std::unique_ptr<AllScatterBaseline>> make_all_scatter_baselines(
    Runtime& rt, const ops::AllScatterShape& shape, cudaStream_t stream,
    std::vector<SkippedBaseline>& skipped) {
  if (const std::string why = ops::validate(shape, rt.world()); !why.empty())
    throw Error(fmt::format("{}GEMM + all-scatter baselines: {}", rank_prefix(), why));
  const ShardGeometry g = shard_geometry(shape, rt.rank(), rt.world());
  const NcclSituation nccl = nccl_situation(rt);
  // Allocated before the scratch C, so that releasing the scratch leaves it in place.
  const auto barrier = std::make_shared<ops::StreamBarrier>(rt);

  std::vector<std::unique_ptr<AllScatterBaseline>> baselines;
  {
    HeapScope scratch(rt.heap());
    const TuningOperands tuning(rt.heap(), g, stream);
    // An NCCL baseline where NCCL can run it, else the reason it cannot. One that fails
    // to set up on every rank alike (a feature this NCCL, driver or machine lacks) is
    // skipped with the error, so the other contenders of the point still run; one that
    // fails on some ranks only is an error.
    const auto add_nccl = [&](std::string_view name, std::string why_not) {
      if (!why_not.empty()) return skipped.push_back({std::string(name), std::move(why_not)});
#if SYMM_HAVE_NCCL
      const NcclTransport transport =
          name == kNcclCopyEngineName ? NcclTransport::copy_engine : NcclTransport::kernels;
      std::unique_ptr<AllScatterBaseline> built;
      std::string error;
      try {
        built = std::make_unique<NcclAllGather>(rt, g, transport, barrier, tuning, stream);
      } catch (const std::exception& e) {
        error = e.what();
      }
      const std::byte ok{error.empty()};
      const std::vector<std::byte> oks = rt.team().all_gather(std::span(&ok, 1));
      const auto failed = std::count(oks.begin(), oks.end(), std::byte{0});
      if (failed == 0) return baselines.push_back(std::move(built));
      if (failed == std::ssize(oks))
        return skipped.push_back({std::string(name), "failed to set up on every rank: " + error});
      throw Error(fmt::format("{}GEMM + all-scatter baselines: {} failed to set up on {} of {} ranks{}",
                              rank_prefix(), name, failed, oks.size(),
                              error.empty() ? " (not this one)" : ", here with: " + error));
#endif
    };
    // NCCL's first: destroyed first (see the header), their communicators are aborted
    // before another baseline's cudaFree could wait behind an all-gather that never ends.
    add_nccl(kCublasLtNcclName, nccl_skip_reason(nccl));
    add_nccl(kNcclCopyEngineName, nccl_copy_engine_skip_reason(nccl));
    baselines.push_back(std::make_unique<CublasLtCopyEngine>(rt, g, barrier, tuning, stream));
    baselines.push_back(make_fastest_chunked_copy_engine(rt, g, barrier, tuning, stream));
    // No rank may still be pushing into the scratch C when it is released.
    rt.barrier(stream);
  }
  return baselines;
}

void destroy_in_order(std::vector<std::unique_ptr<AllScatterBaseline>>& baselines) noexcept {
  for (auto& baseline : baselines) baseline.reset();
  baselines.clear();
}

}  // namespace symm::baselines
