// Host-side parts of tensors: the view's layout, element types, the random generator
// (checked against Philox's published answers) and the factories' argument checks.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "random.hpp"
#include "symm/host/dtype.hpp"
#include "symm/host/tensor.hpp"

namespace symm {
namespace {

TEST(TensorView, ContiguousStridesAreRowMajorAndIndexingFollowsThem) {
  std::vector<float> storage(2 * 3 * 4);
  for (std::size_t i = 0; i < storage.size(); ++i) storage[i] = static_cast<float>(i);
  const Tensor<float> t = Tensor<float>::contiguous(storage.data(), {2, 3, 4});
  EXPECT_EQ(t.rank(), 3);
  EXPECT_EQ(t.stride(0), 12);
  EXPECT_EQ(t.stride(1), 4);
  EXPECT_EQ(t.stride(2), 1);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.bytes(), 24 * sizeof(float));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t(1, 2, 3), 23.0f);
  EXPECT_EQ(t(0, 1, 2), 6.0f);
  t(1, 0, 0) = -1.0f;
  EXPECT_EQ(storage[12], -1.0f);
}

TEST(TensorView, ATransposedViewIsNotContiguous) {
  std::vector<std::int32_t> storage(6);
  Tensor<std::int32_t> t = Tensor<std::int32_t>::contiguous(storage.data(), {2, 3});
  std::swap(t.shape.dims[0], t.shape.dims[1]);
  std::swap(t.strides[0], t.strides[1]);
  EXPECT_FALSE(t.is_contiguous());
  t(2, 1) = 7;  // element (1, 2) of the original
  EXPECT_EQ(storage[5], 7);
}

TEST(TensorView, ShapeRejectsTooManyDimensionsAndNegativeExtents) {
  EXPECT_THROW((Shape{1, 2, 3, 4, 5}), Error);
  EXPECT_THROW((Shape{4, -1}), Error);
  EXPECT_EQ((Shape{}).numel(), 1);  // a scalar
  EXPECT_EQ((Shape{5, 0}).numel(), 0);
  // A count past 2^63 - 1 would wrap and size a buffer too small: refused, naming where.
  EXPECT_EQ((Shape{std::int64_t{1} << 31, std::int64_t{1} << 31}).numel(), std::int64_t{1} << 62);
  try {
    const Shape huge{std::int64_t{1} << 31, std::int64_t{1} << 31, 2};
    ADD_FAILURE() << "2^63 elements were accepted: " << huge.numel();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dimension 2"), std::string::npos) << e.what();
  }
  EXPECT_TRUE((Shape{2, 3}) == (Shape{2, 3}));
  EXPECT_FALSE((Shape{2, 3}) == (Shape{3, 2}));
}

TEST(DType, NamesParseBackAndSizesMatchTheCppTypes) {
  for (DType type : kAllDTypes) {
    EXPECT_EQ(parse_dtype(dtype_name(type)), type);
    const std::size_t size = dispatch_dtype(type, []<class T>() { return sizeof(T); });
    EXPECT_EQ(size, dtype_size(type)) << dtype_name(type);
    const DType round_trip = dispatch_dtype(type, []<class T>() { return dtype_of<T>; });
    EXPECT_EQ(round_trip, type);
  }
  EXPECT_TRUE(is_floating(DType::bf16));
  EXPECT_FALSE(is_floating(DType::int8));
  try {
    parse_dtype("float16");
    ADD_FAILURE() << "float16 is not a symm name";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bf16"), std::string::npos) << e.what();
  }
}

TEST(Random, Philox4x32_10MatchesRandom123KnownAnswers) {
  struct Case {
    random::Words counter;
    std::uint32_t key0, key1;
    random::Words expected;
  };
  const Case cases[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       0xffffffff,
       0xffffffff,
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       0xa4093822,
       0x299f31d0,
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const Case& c : cases) {
    const random::Words out = random::philox4x32_10(c.counter, c.key0, c.key1);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out.w[i], c.expected.w[i]) << "word " << i;
  }
}

TEST(Random, UniformStaysInRangeAndDependsOnSeedAndIndex) {
  double sum = 0;
  constexpr int kCount = 20000;
  for (int i = 0; i < kCount; ++i) {
    const float u = random::uniform_element<float>(7, i, -2.0, 3.0);
    ASSERT_GE(u, -2.0f);
    ASSERT_LT(u, 3.0f);
    sum += u;
    const double d = random::uniform_element<double>(7, i, 0.0, 1.0);
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
  }
  EXPECT_NEAR(sum / kCount, 0.5, 0.05);  // mean of U[-2, 3)
  EXPECT_NE(random::uniform_element<float>(7, 0, 0, 1), random::uniform_element<float>(8, 0, 0, 1));
  EXPECT_NE(random::uniform_element<float>(7, 0, 0, 1), random::uniform_element<float>(7, 1, 0, 1));
}

TEST(Random, RandintCoversExactlyTheRange) {
  std::set<int> seen;
  for (int i = 0; i < 2000; ++i) {
    seen.insert(random::randint_element<std::int8_t>(3, i, -3, 7));  // [-3, 4)
  }
  EXPECT_EQ(seen, (std::set<int>{-3, -2, -1, 0, 1, 2, 3}));
  // The full int64 range does not overflow.
  const std::int64_t low = INT64_MIN;
  const auto range = static_cast<std::uint64_t>(INT64_MAX) - static_cast<std::uint64_t>(low);
  bool negative = false, positive = false;
  for (int i = 0; i < 64; ++i) {
    const auto v = random::randint_element<std::int64_t>(3, i, low, range);
    negative |= v < 0;
    positive |= v > 0;
  }
  EXPECT_TRUE(negative && positive);
}

TEST(TensorFactories, ArangeLengthFollowsTheHalfOpenInterval) {
  EXPECT_EQ(detail::arange_length(0, 10, 1), 10);
  EXPECT_EQ(detail::arange_length(0, 10, 3), 4);  // 0 3 6 9
  EXPECT_EQ(detail::arange_length(5, 0, -2), 3);  // 5 3 1
  EXPECT_EQ(detail::arange_length(0, -1, 1), 0);
  EXPECT_THROW(detail::arange_length(0, 10, 0), Error);
  EXPECT_THROW(detail::arange_length(0, INFINITY, 1), Error);
  EXPECT_THROW(detail::arange_length(0, 1e300, 1e-300), Error);
}

TEST(TensorFactories, IntegerValuesMustFitTheirType) {
  EXPECT_NO_THROW(detail::check_values_fit(DType::int8, -128, 127, "arange"));
  EXPECT_THROW(detail::check_values_fit(DType::int8, 0, 128, "arange"), Error);
  EXPECT_THROW(detail::check_values_fit(DType::int32, -3e9, 0, "linspace"), Error);
  EXPECT_NO_THROW(detail::check_values_fit(DType::fp16, -1e9, 1e9, "linspace"));
  EXPECT_THROW(detail::check_values_fit(DType::fp32, NAN, 1, "linspace"), Error);
}

TEST(TensorFactories, RandintRangeMustBeNonEmptyAndFit) {
  EXPECT_NO_THROW(detail::check_randint_range(DType::int8, -128, 128));
  EXPECT_THROW(detail::check_randint_range(DType::int8, -129, 0), Error);
  EXPECT_THROW(detail::check_randint_range(DType::int8, 0, 129), Error);
  EXPECT_THROW(detail::check_randint_range(DType::int32, 5, 5), Error);
  EXPECT_NO_THROW(detail::check_randint_range(DType::int64, INT64_MIN, INT64_MAX));
}

}  // namespace
}  // namespace symm
