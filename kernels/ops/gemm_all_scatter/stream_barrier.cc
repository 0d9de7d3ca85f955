// StreamBarrier: world arrival flags and one epoch on the heap, advanced by the barrier's
// kernel (stream_barrier.cu).
#include "launch.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/runtime.hpp"
#include "symm/host/tensor.hpp"
#include "symm/ops/gemm_all_scatter.hpp"

namespace symm::ops {

struct StreamBarrier::State {
  Runtime& rt;
  std::uint64_t* arrivals;  // [world]: arrivals[r] = the last epoch rank r reached
  std::uint64_t* epoch;     // waits completed on this rank
};

StreamBarrier::StreamBarrier(Runtime& rt) {
  const int world = rt.world();
  auto* flags = static_cast<std::uint64_t*>(rt.heap().allocate((world + 1) * sizeof(std::uint64_t)));
  symm::detail::memset_on_device(flags, 0, (world + 1) * sizeof(std::uint64_t), nullptr);
  rt.barrier(nullptr);  // every rank's flags are zero before any rank signals
  state_ = std::make_unique<State>(State{rt, flags, flags + world});
}

StreamBarrier::~StreamBarrier() = default;

void StreamBarrier::wait(cudaStream_t stream, std::uint64_t* exit_time_ns) {
  detail::launch_stream_barrier(state_->rt.context(), state_->arrivals, state_->epoch, exit_time_ns,
                                stream);
}

const std::uint64_t* StreamBarrier::device_epoch() const { return state_->epoch; }

}  // namespace symm::ops
