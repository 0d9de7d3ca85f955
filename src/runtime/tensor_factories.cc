// Host-side checks of the tensor factories (symm/host/tensor.hpp).
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "symm/host/cuda_check.hpp"
#include "symm/host/tensor.hpp"

namespace symm::detail {
namespace {

struct IntegerRange {
  double min, max;
};

IntegerRange integer_range(DType type) {
  switch (type) {
    case DType::int8: return {-128.0, 127.0};
    case DType::int32: return {-2147483648.0, 2147483647.0};
    default: return {-0x1p63, 0x1p63};  // int64: doubles are exact up to 2^53 anyway
  }
}

}  // namespace

void memset_on_device(void* data, int byte, std::size_t bytes, cudaStream_t stream) {
  check_cuda(cudaMemsetAsync(data, byte, bytes, stream),
             fmt::format("cudaMemsetAsync({} bytes of a symmetric tensor)", bytes));
}

std::int64_t arange_length(double start, double end, double step) {
  if (!std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step) || step == 0.0) {
    throw Error(fmt::format("symm::arange({}, {}, {}): start and end must be finite and step "
                            "finite and non-zero",
                            start, end, step));
  }
  const double length = std::ceil((end - start) / step);
  if (length > 0x1p53) {
    throw Error(fmt::format("symm::arange({}, {}, {}): {} elements is too many", start, end, step,
                            length));
  }
  return length > 0 ? static_cast<std::int64_t>(length) : 0;
}

void check_values_fit(DType type, double first, double last, const char* factory) {
  if (!std::isfinite(first) || !std::isfinite(last)) {
    throw Error(fmt::format("symm::{}: values must be finite (got {} .. {})", factory, first, last));
  }
  if (is_floating(type)) return;
  const IntegerRange range = integer_range(type);
  const double low = std::min(first, last), high = std::max(first, last);
  if (low < range.min || high >= range.max + 1.0) {
    throw Error(fmt::format("symm::{}: values {} .. {} do not fit in {}", factory, first, last,
                            dtype_name(type)));
  }
}

void check_randint_range(DType type, std::int64_t low, std::int64_t high) {
  if (low >= high) {
    throw Error(fmt::format("symm::randint: need low < high (got [{}, {}))", low, high));
  }
  const IntegerRange range = integer_range(type);
  if (static_cast<double>(low) < range.min || static_cast<double>(high) - 1.0 > range.max) {
    throw Error(fmt::format("symm::randint: [{}, {}) does not fit in {}", low, high,
                            dtype_name(type)));
  }
}

}  // namespace symm::detail
