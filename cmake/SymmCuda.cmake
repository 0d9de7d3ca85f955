# CUDA language settings shared by every target.
#
# CMake 3.25 does not know that nvcc 13 accepts C++20 and silently drops
# CMAKE_CUDA_STANDARD 20, so -std=c++20 is passed explicitly (tests/cpu checks
# __cplusplus inside a .cu file so a regression is caught).
#
# Hopper-only code (wgmma, TMA, setmaxnreg) is built for sm_90a; code that runs
# anywhere is also built for sm_80 (symm_portable_cuda_target below).
set(SYMM_HOPPER_ARCH "90a" CACHE STRING "CUDA architecture for Hopper-only kernels")
set(SYMM_PORTABLE_ARCHS "80;90a" CACHE STRING "CUDA architectures for portable kernels")
set(CMAKE_CUDA_ARCHITECTURES ${SYMM_HOPPER_ARCH})
# Targets that inherit a cxx_std_20 compile feature (fmt, CLI11) would make CMake demand
# a CUDA20 dialect it cannot name for nvcc 13; the explicit flag below covers it.
set(CMAKE_CUDA_STANDARD_REQUIRED OFF)

add_library(symm_cuda_flags INTERFACE)
add_library(symm::cuda_flags ALIAS symm_cuda_flags)
set_target_properties(symm_cuda_flags PROPERTIES EXPORT_NAME cuda_flags)  # symm::cuda_flags when installed too
target_compile_options(symm_cuda_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20 --expt-relaxed-constexpr --extended-lambda -Xptxas=-warn-spills>
  # Device code stays optimised in every configuration (-G would blow the GEMM's register
  # budget); Debug adds SYMM_DEBUG, which turns on the device-side scope and range checks.
  $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>
  $<BUILD_INTERFACE:$<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>>)
target_compile_definitions(symm_cuda_flags INTERFACE $<$<CONFIG:Debug>:SYMM_DEBUG=1>)
if(SYMM_WERROR)
  # Our own warnings policy; installed users keep theirs.
  target_compile_options(symm_cuda_flags INTERFACE $<BUILD_INTERFACE:$<$<COMPILE_LANGUAGE:CXX>:-Werror>>)
endif()

# Portable (non-Hopper) CUDA targets call this to add sm_80 code next to sm_90a.
function(symm_portable_cuda_target target)
  set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES ${SYMM_PORTABLE_ARCHS})
endfunction()
