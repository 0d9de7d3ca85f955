// CMake 3.25 does not pass -std=c++20 to nvcc 13 by itself (cmake/SymmCuda.cmake adds
// it); this .cu file records the standard nvcc compiled it with, and refuses to
// compile below C++20, so a lost flag is caught at build time and in the test report.
#include "cxx20_in_cu.hpp"

static_assert(__cplusplus >= 202002L, "CUDA sources must be compiled as C++20");

long cplusplus_seen_by_nvcc() { return __cplusplus; }
