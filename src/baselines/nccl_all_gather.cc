#include "nccl_all_gather.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "nccl_check.hpp"
#include "skip_reasons.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/runtime.hpp"

namespace symm::baselines {
namespace {

ncclConfig_t config_for(NcclTransport transport) {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  // Zero CTAs: NCCL moves data without SMs wherever it can (the copy engines here).
  if (transport == NcclTransport::copy_engine) {
    config.CTAPolicy = NCCL_CTA_POLICY_ZERO;
    // NCCL takes its copy-engine path on symmetric windows from 8 MiB only (its
    // SYM_CE_THRESHOLD); this contender is that path at every size, unless the user set
    // the variable. Set before the communicator exists, read by NCCL once per process;
    // collectives outside a window (the other NCCL contender) never take that path.
    ::setenv("NCCL_SYM_CE_THRESHOLD", "0", 0);
  }
  return config;
}

ncclDataType_t nccl_type(gemm::DType dtype) {
  return dtype == gemm::DType::bf16 ? ncclBfloat16 : ncclFloat16;
}

}  // namespace

NcclAllGather::NcclAllGather(Runtime& rt, const ShardGeometry& g, NcclTransport transport,
                             std::shared_ptr<ops::StreamBarrier> barrier,
                             const TuningOperands& tuning, cudaStream_t stream)
    : g_(g),
      transport_(transport),
      barrier_(std::move(barrier)),
      comm_(rt.team(), config_for(transport)) {
  const std::size_t bytes = g.world * g.shard_bytes();
  if (transport == NcclTransport::copy_engine) {
    window_gather_ = std::make_unique<NcclWindowBuffer>(comm_.get(), bytes);
    gather_ = window_gather_->get();
    side_.emplace();
  } else {
    plain_gather_ = DeviceBuffer(bytes, "NCCL all-gather buffer");
    gather_ = plain_gather_.get();
  }
  // Its algorithm the fastest of those whose output passes the programs' check.
  const gemm::GemmProblem shard = shard_gemm(g, 0, g.m, tuning.a(), tuning.b_shard(), slot(g.rank), g.shard_cols);
  gemm_ = std::make_unique<CublasLtGemm>(shard, stream, matches_reference(shard, stream));
  check_nccl(ncclGetVersion(&nccl_version_), "ncclGetVersion");
}

NcclAllGather::~NcclAllGather() { comm_.abort_if_unwinding(); }

std::string NcclAllGather::name() const {
  return std::string(transport_ == NcclTransport::copy_engine ? kNcclCopyEngineName
                                                              : kCublasLtNcclName);
}

std::string NcclAllGather::detail() const {
  std::string text = fmt::format(
      "NCCL {}{}; cublasLt {}; in-place ncclAllGather of the ranks' ({}) {} x {} slots, then a "
      "cudaMemcpy2DAsync per slot into C",
      nccl_version_string(nccl_version_),
      transport_ == NcclTransport::copy_engine ? ", NCCL_CTA_POLICY_ZERO, symmetric window" : "",
      gemm_->chosen(), g_.world, g_.m, g_.shard_cols);
  if (transport_ == NcclTransport::copy_engine)
    text +=
        "; NCCL falls back to its kernels where the communicator lacks symmetric-memory "
        "support (NCCL_DEBUG=INFO shows which ran)";
  return text;
}

void* NcclAllGather::slot(int rank) const {
  return byte_offset(gather_, static_cast<std::size_t>(rank) * g_.shard_bytes());
}

void NcclAllGather::run(const void* a, const void* b_shard, void* c, cudaStream_t stream) {
  gemm_->run(a, b_shard, slot(g_.rank), stream);
  cudaStream_t nccl_stream = stream;
  if (side_) {
    nccl_stream = side_->stream.get();
    order_after(nccl_stream, stream, side_->fork.get());
  }
  check_nccl(ncclAllGather(slot(g_.rank), gather_, static_cast<std::size_t>(g_.m * g_.shard_cols),
                           nccl_type(g_.dtype), comm_.get(), nccl_stream),
             "ncclAllGather", comm_.get());
  if (side_) order_after(stream, nccl_stream, side_->join.get());
  for (int r = 0; r < g_.world; ++r)
    check_cuda(cudaMemcpy2DAsync(byte_offset(c, g_.c_offset(r, 0)), g_.c_pitch(), slot(r),
                                 g_.shard_width(), g_.shard_width(), static_cast<std::size_t>(g_.m),
                                 cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpy2DAsync(gathered slot into C's columns)");
  barrier_->wait(stream);
}

}  // namespace symm::baselines
