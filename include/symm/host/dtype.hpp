#pragma once
// Host-side helpers for element types chosen at run time (e.g. --datatype bf16).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "symm/common/dtype.hpp"
#include "symm/common/error.hpp"

namespace symm {

inline constexpr std::array<DType, 7> kAllDTypes = {DType::int8, DType::int32, DType::int64,
                                                    DType::fp16, DType::bf16,  DType::fp32,
                                                    DType::fp64};

// "bf16" -> DType::bf16; anything else is a symm::Error listing the accepted names.
inline DType parse_dtype(std::string_view name) {
  for (DType type : kAllDTypes) {
    if (dtype_name(type) == name) return type;
  }
  std::string accepted;
  for (DType type : kAllDTypes) {
    accepted += (accepted.empty() ? "" : ", ") + std::string(dtype_name(type));
  }
  throw Error("unknown data type '" + std::string(name) + "'; expected one of: " + accepted);
}

// Calls visitor.template operator()<T>() with the C++ type of `type`, so code written
// once as a template serves every element type chosen at run time.
template <class Visitor>
decltype(auto) dispatch_dtype(DType type, Visitor&& visitor) {
  switch (type) {
    case DType::int8: return std::forward<Visitor>(visitor).template operator()<std::int8_t>();
    case DType::int32: return std::forward<Visitor>(visitor).template operator()<std::int32_t>();
    case DType::int64: return std::forward<Visitor>(visitor).template operator()<std::int64_t>();
    case DType::fp16: return std::forward<Visitor>(visitor).template operator()<fp16>();
    case DType::bf16: return std::forward<Visitor>(visitor).template operator()<bf16>();
    case DType::fp32: return std::forward<Visitor>(visitor).template operator()<float>();
    case DType::fp64: return std::forward<Visitor>(visitor).template operator()<double>();
  }
  throw Error("dispatch_dtype: invalid DType value " +
              std::to_string(static_cast<int>(type)));
}

}  // namespace symm
