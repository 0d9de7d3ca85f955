#pragma once
// symm::Tensor<T>: a typed view of device memory (pointer, shape, strides), passed by
// value to kernels and used on the host alike. It owns nothing: tensors made by the
// factories in symm/host/tensor.hpp live on the symmetric heap, so the same view
// translated to a peer (Context::translate on data) addresses that peer's copy.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "symm/common/dtype.hpp"
#include "symm/common/error.hpp"

#if defined(__CUDACC__)
#define SYMM_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define SYMM_HOST_DEVICE inline
#endif

namespace symm {

inline constexpr int kMaxTensorRank = 4;

// Extents of a tensor, outermost first: Shape{rows, cols}.
struct Shape {
  int rank = 0;
  std::int64_t dims[kMaxTensorRank] = {};

  Shape() = default;
  Shape(std::initializer_list<std::int64_t> extents) {
    if (extents.size() > static_cast<std::size_t>(kMaxTensorRank)) {
      throw Error("symm::Shape: rank " + std::to_string(extents.size()) +
                  " exceeds the maximum of " + std::to_string(kMaxTensorRank));
    }
    std::int64_t elements = 1;
    for (std::int64_t extent : extents) {
      if (extent < 0) throw Error("symm::Shape: negative extent " + std::to_string(extent));
      // numel() must not wrap: a wrapped count would size a buffer too small for the tensor.
      if (__builtin_mul_overflow(elements, extent, &elements))
        throw Error("symm::Shape: the extents' product exceeds 2^63 elements (extent " + std::to_string(extent) +
                    " at dimension " + std::to_string(rank) + ")");
      dims[rank++] = extent;
    }
  }

  SYMM_HOST_DEVICE std::int64_t numel() const {
    std::int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= dims[d];
    return n;
  }
  SYMM_HOST_DEVICE bool operator==(const Shape& other) const {
    if (rank != other.rank) return false;
    for (int d = 0; d < rank; ++d) {
      if (dims[d] != other.dims[d]) return false;
    }
    return true;
  }
};

template <Element T>
struct Tensor {
  T* data = nullptr;
  Shape shape;
  std::int64_t strides[kMaxTensorRank] = {};  // in elements, not bytes

  // A dense row-major view of `shape` starting at `data`.
  SYMM_HOST_DEVICE static Tensor contiguous(T* data, const Shape& shape) {
    Tensor t;
    t.data = data;
    t.shape = shape;
    std::int64_t stride = 1;
    for (int d = shape.rank - 1; d >= 0; --d) {
      t.strides[d] = stride;
      stride *= shape.dims[d];
    }
    return t;
  }

  SYMM_HOST_DEVICE int rank() const { return shape.rank; }
  SYMM_HOST_DEVICE std::int64_t size(int dim) const { return shape.dims[dim]; }
  SYMM_HOST_DEVICE std::int64_t stride(int dim) const { return strides[dim]; }
  SYMM_HOST_DEVICE std::int64_t numel() const { return shape.numel(); }
  SYMM_HOST_DEVICE std::size_t bytes() const {
    return static_cast<std::size_t>(numel()) * sizeof(T);
  }

  SYMM_HOST_DEVICE bool is_contiguous() const {
    std::int64_t expected = 1;
    for (int d = shape.rank - 1; d >= 0; --d) {
      if (shape.dims[d] != 1 && strides[d] != expected) return false;
      expected *= shape.dims[d];
    }
    return true;
  }

  // Element at a multi-index, one index per dimension: t(row, col). Unchecked, as
  // pointer arithmetic is; the reference is only dereferenceable where data is (the
  // device, for heap tensors).
  template <class... Index>
  SYMM_HOST_DEVICE T& operator()(Index... index) const {
    static_assert(sizeof...(Index) >= 1 && sizeof...(Index) <= kMaxTensorRank,
                  "Tensor(): give between 1 and kMaxTensorRank indices");
    const std::int64_t indices[] = {static_cast<std::int64_t>(index)...};
    std::int64_t offset = 0;
    for (int d = 0; d < static_cast<int>(sizeof...(Index)); ++d) offset += indices[d] * strides[d];
    return data[offset];
  }
};

static_assert(std::is_trivially_copyable_v<Shape>);
static_assert(std::is_trivially_copyable_v<Tensor<float>>);

}  // namespace symm
