// Random operands on the heap, from the tensor factories (Philox: the same bits on any
// rank and GPU that asks for the same seed).
#include "operands.hpp"

#include "symm/host/tensor.hpp"

namespace symm::examples::gemm_all_scatter {
namespace {

// Calls f.template operator()<T>() with the element type of `dtype` (bf16 or fp16).
template <class F>
decltype(auto) with_element(gemm::DType dtype, F&& f) {
  if (dtype == gemm::DType::fp16) return f.template operator()<fp16>();
  return f.template operator()<bf16>();
}

}  // namespace

std::int64_t shard_elements(const ops::AllScatterShape& shape, int world) {
  return shape.k * (shape.n / world);
}

std::size_t c_bytes(const ops::AllScatterShape& shape) {
  return static_cast<std::size_t>(shape.m * shape.n) * gemm::dtype_bytes(shape.dtype);
}

Operands make_operands(Runtime& rt, const ops::AllScatterShape& shape, std::uint64_t seed,
                       cudaStream_t stream) {
  const std::int64_t cols = shape.n / rt.world();
  const Shape b_shape =
      shape.b_layout == gemm::BLayout::kn ? Shape{shape.k, cols} : Shape{cols, shape.k};
  return with_element(shape.dtype, [&]<class T>() {
    Operands o;
    o.a = randn<T>(rt.heap(), {shape.m, shape.k}, a_seed(seed), stream).data;
    o.b_shard = randn<T>(rt.heap(), b_shape, shard_seed(seed, rt.rank()), stream).data;
    o.c = empty<T>(rt.heap(), {shape.m, shape.n}, stream).data;
    return o;
  });
}

void fill_b_shard(void* dst, const ops::AllScatterShape& shape, int world, int shard,
                  std::uint64_t seed, cudaStream_t stream) {
  with_element(shape.dtype, [&]<class T>() {
    // What randn does for the shard's owner (same generator, seed and element count).
    detail::normal_on_device<T>(static_cast<T*>(dst),
                                static_cast<std::size_t>(shard_elements(shape, world)),
                                shard_seed(seed, shard), 0.0, 1.0, stream);
  });
}

}  // namespace symm::examples::gemm_all_scatter
