#pragma once
// Random operands of the problem's sizes for the timings made at construction (cuBLASLt's
// algorithm, the row-block count): A and the B shard in device memory, C on the heap
// (peers push into it). Times measured on zeros would flatter the GPU's power draw.
#include <cuda_runtime_api.h>

#include "symm/host/cuda_resources.hpp"
#include "shard_geometry.hpp"

namespace symm {
class Heap;
}

namespace symm::baselines {

class TuningOperands {
 public:
  // Collective (C is a heap allocation: release it with a HeapScope around this object).
  TuningOperands(Heap& heap, const ShardGeometry& g, cudaStream_t stream);

  const void* a() const { return a_.get(); }
  const void* b_shard() const { return b_shard_.get(); }
  void* c() const { return c_; }

 private:
  DeviceBuffer a_, b_shard_;
  void* c_ = nullptr;
};

}  // namespace symm::baselines
