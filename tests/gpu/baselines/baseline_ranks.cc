#include "baseline_ranks.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "symm/baselines/all_scatter_baselines.hpp"
#include "symm/gemm/gemm.hpp"
#include "symm/host/cuda_check.hpp"
#include "symm/host/cuda_resources.hpp"
#include "symm/host/tensor.hpp"

namespace symm::test {
namespace {

// bf16/fp16 outputs against an fp32 reference: half an ulp of bf16 is 2^-8 relative.
constexpr float kRelativeTolerance = 1e-2f, kAbsoluteTolerance = 1e-2f;

// A, every rank's B shard (every rank makes them all from the same seeds) and the fp32
// reference C on the host, by our GEMM (not cuBLASLt, which the baselines use).
struct InputSet {
  void* a = nullptr;
  std::vector<void*> b_shards;
  std::vector<float> reference;
};

template <class T>
InputSet make_inputs(Runtime& rt, const ops::AllScatterShape& s, std::uint64_t seed,
                     cudaStream_t stream) {
  const std::int64_t shard_cols = s.n / rt.world();
  InputSet in;
  in.a = randn<T>(rt.heap(), {s.m, s.k}, seed, stream).data;
  const Shape b_shape = s.b_layout == gemm::BLayout::kn ? Shape{s.k, shard_cols}
                                                        : Shape{shard_cols, s.k};
  for (int r = 0; r < rt.world(); ++r)
    in.b_shards.push_back(randn<T>(rt.heap(), b_shape, seed + 1 + r, stream).data);

  auto* reference = empty<float>(rt.heap(), {s.m, s.n}, stream).data;
  gemm::Gemm reference_gemm(gemm::GemmOptions{});
  for (int r = 0; r < rt.world(); ++r) {
    const gemm::GemmProblem p{s.m, shard_cols, s.k, in.a, s.k, in.b_shards[r],
                              s.b_layout == gemm::BLayout::kn ? shard_cols : s.k, s.b_layout,
                              reference + r * shard_cols, s.n, s.dtype, gemm::DType::fp32};
    reference_gemm.run(p, stream);
  }
  in.reference.resize(static_cast<std::size_t>(s.m * s.n));
  SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));
  SYMM_CUDA_CHECK(cudaMemcpy(in.reference.data(), reference, in.reference.size() * sizeof(float),
                             cudaMemcpyDeviceToHost));
  return in;
}

InputSet make_inputs(Runtime& rt, const ops::AllScatterShape& s, std::uint64_t seed,
                     cudaStream_t stream) {
  return s.dtype == gemm::DType::fp16 ? make_inputs<fp16>(rt, s, seed, stream)
                                      : make_inputs<bf16>(rt, s, seed, stream);
}

float to_float(std::uint16_t bits, gemm::DType dtype) {
  if (dtype == gemm::DType::bf16) {
    const std::uint32_t widened = std::uint32_t{bits} << 16;
    float value;
    std::memcpy(&value, &widened, sizeof(value));
    return value;
  }
  __half_raw raw;
  raw.x = bits;
  return __half2float(__half(raw));
}

std::vector<std::uint16_t> to_host(const void* device, std::size_t elements) {
  std::vector<std::uint16_t> host(elements);
  SYMM_CUDA_CHECK(cudaMemcpy(host.data(), device, elements * 2, cudaMemcpyDeviceToHost));
  return host;
}

// A peer's heap memory, through this rank's mapping of it: copied on the device first (a
// device-to-device copy is how peers' heaps are reached; a copy to the host straight
// from another GPU's mapping is not something the baselines rely on).
std::vector<std::uint16_t> peer_to_host(const void* peer_device, std::size_t elements) {
  const DeviceBuffer local(elements * 2, "copy of rank 0's C");
  SYMM_CUDA_CHECK(cudaMemcpy(local.get(), peer_device, elements * 2, cudaMemcpyDefault));
  return to_host(local.get(), elements);
}

// Elements out of tolerance (NaN poison included).
std::size_t far_from_reference(const std::vector<std::uint16_t>& c,
                               const std::vector<float>& reference, gemm::DType dtype) {
  std::size_t far = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const float got = to_float(c[i], dtype), want = reference[i];
    far += !(std::abs(got - want) <= kRelativeTolerance * std::abs(want) + kAbsoluteTolerance);
  }
  return far;
}

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

int baselines_match_reference(Runtime& rt, const BaselineCase& c) {
  Failures failures("baselines");
  const ops::AllScatterShape& s = c.shape;
  const std::size_t c_elements = static_cast<std::size_t>(s.m * s.n);
  cudaStream_t stream = nullptr;
  SYMM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    HeapScope scope(rt.heap());
    const std::array<InputSet, 2> sets{make_inputs(rt, s, 11, stream),
                                       make_inputs(rt, s, 23, stream)};
    void* out = empty<bf16>(rt.heap(), {s.m, s.n}, stream).data;  // bf16 and fp16: 2 bytes
    std::vector<baselines::SkippedBaseline> skipped;
    auto built = baselines::make_all_scatter_baselines(rt, s, stream, skipped);

    std::vector<std::string> built_names;
    for (const auto& b : built) built_names.push_back(b->name());
    for (const auto& name : c.must_run) {
      const auto skip = std::find_if(skipped.begin(), skipped.end(), [&](const auto& k) { return k.name == name; });
      failures.check(listed(built_names, name),
                     fmt::format("{} was not built{}", name, skip == skipped.end() ? "" : ": " + skip->reason));
    }
    for (const auto& name : c.must_skip)
      failures.check(std::any_of(skipped.begin(), skipped.end(),
                                 [&](const auto& k) { return k.name == name; }),
                     fmt::format("{} was not skipped", name));
    for (const auto& k : skipped)
      failures.check(!k.reason.empty() && k.reason.find(c.skip_reason_mentions) != std::string::npos,
                     fmt::format("{} skipped for: '{}'", k.name, k.reason));

    const void* rank0_out = rt.heap().translate(out, 0);
    for (const auto& baseline : built) {
      for (int i = 0; i < c.iterations; ++i) {
        const InputSet& in = sets[i % 2];
        detail::memset_on_device(out, 0xFF, c_elements * 2, stream);  // NaN
        rt.barrier(stream);
        baseline->run(in.a, in.b_shards[rt.rank()], out, stream);
        rt.barrier(stream);
        const auto mine = to_host(out, c_elements);
        const std::size_t far = far_from_reference(mine, in.reference, s.dtype);
        failures.check(far == 0, fmt::format("{} run {}: {} of {} elements of C out of tolerance "
                                             "({})", baseline->name(), i, far, c_elements,
                                             baseline->detail()));
        failures.check(mine == peer_to_host(rank0_out, c_elements),
                       fmt::format("{} run {}: C differs from rank 0's", baseline->name(), i));
        rt.barrier(stream);  // nobody poisons C while a peer still reads it
      }
    }
  }
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
  return failures.exit_code();
}

}  // namespace symm::test
