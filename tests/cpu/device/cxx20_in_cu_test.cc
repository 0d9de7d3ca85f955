#include <gtest/gtest.h>

#include "cxx20_in_cu.hpp"

TEST(CudaLanguage, CudaSourcesAreCompiledAsCxx20) {
  EXPECT_GE(cplusplus_seen_by_nvcc(), 202002L);
}
