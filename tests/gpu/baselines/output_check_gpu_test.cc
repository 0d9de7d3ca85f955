// The GEMM output check on the GPU (symm::baselines::count_wrong): a C that is the
// reference rounded to bf16/fp16 passes; one element planted just beyond the tolerance,
// one wrong 64 x 64 tile, one NaN and an unwritten (NaN-poisoned) C are each caught, with
// the count and the first wrong location. One process, no ranks (CUDA is used directly).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gpu_presence.hpp"
#include "symm/baselines/output_check.hpp"
#include "symm/common/dtype.hpp"

namespace symm::baselines {
namespace {

constexpr std::int64_t kRows = 300, kCols = 200, kK = 4096;  // ragged: no power of two

template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n) : n_(n) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&ptr_), n * sizeof(T)), cudaSuccess);
  }
  ~DeviceArray() { cudaFree(ptr_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  void upload(const std::vector<T>& host) {
    ASSERT_EQ(cudaMemcpy(ptr_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  T* get() const { return ptr_; }

 private:
  T* ptr_ = nullptr;
  std::size_t n_;
};

// A reference of the scale of a K-deep product of unit operands, and C = it rounded to T.
template <class T>
struct Outputs {
  std::vector<float> ref = std::vector<float>(kRows * kCols);
  std::vector<T> c = std::vector<T>(kRows * kCols);
  DeviceArray<float> ref_d{ref.size()};
  DeviceArray<T> c_d{c.size()};

  Outputs() {
    std::mt19937 rng(12345);
    std::normal_distribution<float> normal(0.0f, std::sqrt(float(kK)));
    for (std::size_t i = 0; i < ref.size(); ++i) c[i] = T(ref[i] = normal(rng));
    ref_d.upload(ref);
  }
  Mismatch check(gemm::DType dtype) {
    c_d.upload(c);
    return count_wrong(c_d.get(), dtype, ref_d.get(), kRows * kCols, output_tolerance(dtype, kK), nullptr);
  }
  // ref + factor * (the allowed error at i), rounded to T.
  T off_by(std::int64_t i, gemm::DType dtype, double factor) const {
    const Tolerance tol = output_tolerance(dtype, kK);
    return T(float(ref[i] + factor * (tol.rtol * std::fabs(ref[i]) + tol.atol)));
  }
};

template <class T>
void plants_one_element(gemm::DType dtype) {
  Outputs<T> out;
  EXPECT_EQ(out.check(dtype).wrong, 0u) << "the reference rounded to the output type must pass";
  const std::int64_t inside = 7 * kCols + 3, bad = 123 * kCols + 45;
  out.c[inside] = out.off_by(inside, dtype, 0.5);
  out.c[bad] = out.off_by(bad, dtype, 3.0);
  const Mismatch m = out.check(dtype);
  EXPECT_EQ(m.wrong, 1u) << "only the element 3 tolerances off is wrong";
  EXPECT_EQ(m.first, bad);
  EXPECT_EQ(m.got, float(out.c[bad]));
  EXPECT_EQ(m.expected, out.ref[bad]);
  EXPECT_NE(describe(m, kCols, "C").find("1 wrong elements of C, first at row 123 col 45:"), std::string::npos);
}

TEST(OutputCheckOnGpu, OnePlantedElementIsFoundWithItsLocationBf16) {
  SYMM_REQUIRE_GPUS(1);
  plants_one_element<bf16>(gemm::DType::bf16);
}

TEST(OutputCheckOnGpu, OnePlantedElementIsFoundWithItsLocationFp16) {
  SYMM_REQUIRE_GPUS(1);
  plants_one_element<fp16>(gemm::DType::fp16);
}

TEST(OutputCheckOnGpu, OneWrongTileIsCountedWhole) {
  SYMM_REQUIRE_GPUS(1);
  Outputs<bf16> out;
  constexpr std::int64_t kTile = 64, top = 2 * kTile, left = 1 * kTile;
  for (std::int64_t r = top; r < top + kTile; ++r)
    for (std::int64_t col = left; col < left + kTile; ++col)
      out.c[r * kCols + col] = out.off_by(r * kCols + col, gemm::DType::bf16, -2.0);
  const Mismatch m = out.check(gemm::DType::bf16);
  EXPECT_EQ(m.wrong, std::uint64_t(kTile * kTile));
  EXPECT_EQ(m.first, top * kCols + left);
}

TEST(OutputCheckOnGpu, ANanAndAnUnwrittenCAreCaught) {
  SYMM_REQUIRE_GPUS(1);
  Outputs<bf16> out;
  const std::int64_t last = kRows * kCols - 1;
  out.c[last] = bf16(std::nanf(""));
  Mismatch m = out.check(gemm::DType::bf16);
  EXPECT_EQ(m.wrong, 1u);
  EXPECT_EQ(m.first, last);
  EXPECT_TRUE(std::isnan(m.got));
  // What every validation does before running a contender: all bits set (NaN).
  ASSERT_EQ(cudaMemset(out.c_d.get(), 0xFF, out.c.size() * sizeof(bf16)), cudaSuccess);
  m = count_wrong(out.c_d.get(), gemm::DType::bf16, out.ref_d.get(), kRows * kCols,
                  output_tolerance(gemm::DType::bf16, kK), nullptr);
  EXPECT_EQ(m.wrong, std::uint64_t(kRows * kCols));
  EXPECT_EQ(m.first, 0);
}

}  // namespace
}  // namespace symm::baselines
