# Every dependency is found here; a missing one fails configuration with a message
# naming it and the package that provides it (scripts/install-deps.sh installs them).

find_package(CUDAToolkit 13.0 REQUIRED)

# NCCL is optional (cmake/FindNCCL.cmake): without it the NCCL baselines report themselves
# skipped. Only the 2.28.3 API is used (the GPU machine's version).
find_package(NCCL 2.28.3 QUIET)
if(NCCL_FOUND)
  set(SYMM_HAVE_NCCL 1)
  get_filename_component(SYMM_NCCL_ROOT ${NCCL_INCLUDE_DIR} DIRECTORY)  # for symmConfig.cmake
  message(STATUS "symm: NCCL ${NCCL_VERSION} (${NCCL_LIBRARY}): NCCL baselines built")
else()
  set(SYMM_HAVE_NCCL 0)
  if(NCCL_VERSION)
    set(_nccl_seen " (found ${NCCL_VERSION} in ${NCCL_INCLUDE_DIR}, too old)")
  endif()
  message(STATUS "symm: NCCL 2.28.3 or later not found${_nccl_seen}: the NCCL baselines will "
                 "report themselves skipped (set NCCL_ROOT to an NCCL installation to build them)")
endif()

function(symm_require_package name hint)
  find_package(${name} CONFIG QUIET)
  if(NOT ${name}_FOUND)
    find_package(${name} QUIET)
  endif()
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR "symm: dependency '${name}' not found. Install it with: ${hint} "
                        "(or run scripts/install-deps.sh).")
  endif()
endfunction()

symm_require_package(fmt "apt-get install libfmt-dev")
symm_require_package(nlohmann_json "apt-get install nlohmann-json3-dev")
symm_require_package(CLI11 "apt-get install libcli11-dev")
if(SYMM_BUILD_TESTS)
  symm_require_package(GTest "apt-get install libgtest-dev libgmock-dev")
endif()
