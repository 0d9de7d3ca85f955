#pragma once
// cublaslt+nccl and nccl_ce_all_gather: cuBLASLt GEMM of the shard into this rank's slot
// of a world x M x N/world gather buffer, NCCL's in-place all-gather of the slots, one
// cudaMemcpy2DAsync per slot into C's column blocks, then the cross-rank barrier.
//
// transport::kernels is NCCL as most programs use it (its kernels move the data, on SMs).
// transport::copy_engine asks NCCL 2.28.3+ for its copy-engine all-gather: a communicator
// with NCCL_CTA_POLICY_ZERO and the gather buffer registered as a symmetric window.
#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>

#include "symm/host/cuda_resources.hpp"
#include "nccl_communicator.hpp"
#include "shard_geometry.hpp"
#include "symm/baselines/all_scatter_baselines.hpp"
#include "symm/baselines/cublaslt_gemm.hpp"
#include "tuning_operands.hpp"

namespace symm::baselines {

enum class NcclTransport { kernels, copy_engine };

class NcclAllGather final : public AllScatterBaseline {
 public:
  // Collective (the communicator, the window).
  NcclAllGather(Runtime& rt, const ShardGeometry& g, NcclTransport transport,
                std::shared_ptr<ops::StreamBarrier> barrier, const TuningOperands& tuning,
                cudaStream_t stream);
  // While an exception unwinds, the communicator is aborted before any buffer is freed:
  // cudaFree waits for the device, and an all-gather whose peer never joined never ends.
  ~NcclAllGather() override;

  std::string name() const override;
  std::string detail() const override;
  void run(const void* a, const void* b_shard, void* c, cudaStream_t stream) override;

 private:
  // NCCL's copy-engine path calls cudaMemcpyBatchAsync, which refuses the legacy default
  // stream: the all-gather runs on a stream of its own, forked from and joined to the caller's.
  struct SideStream {
    OwnedStream stream;
    OwnedEvent fork, join;
  };

  void* slot(int rank) const;

  ShardGeometry g_;
  NcclTransport transport_;
  std::shared_ptr<ops::StreamBarrier> barrier_;
  NcclCommunicator comm_;  // outlives the window, which deregisters through it
  DeviceBuffer plain_gather_;                        // kernels
  std::unique_ptr<NcclWindowBuffer> window_gather_;  // copy_engine
  void* gather_ = nullptr;                           // world x (M x N/world), dense
  std::optional<SideStream> side_;                   // copy_engine
  std::unique_ptr<CublasLtGemm> gemm_;
  int nccl_version_ = 0;
};

}  // namespace symm::baselines
