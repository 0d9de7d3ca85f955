# Every dependency is found here; a missing one fails configuration with a message
# naming it and the package that provides it (scripts/install-deps.sh installs them).

find_package(CUDAToolkit 13.0 REQUIRED)

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

# NCCL ships with the CUDA toolkit here (/usr/local/cuda) and in the system paths on
# the GPU machine; symm uses only the NCCL 2.28.3 API.
find_path(SYMM_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/include)
find_library(SYMM_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/lib/x86_64-linux-gnu)
if(NOT SYMM_NCCL_INCLUDE_DIR OR NOT SYMM_NCCL_LIBRARY)
  message(FATAL_ERROR "symm: NCCL not found (looked for nccl.h and libnccl in the CUDA "
                      "toolkit and the system paths). Install NCCL >= 2.28.3.")
endif()
file(STRINGS ${SYMM_NCCL_INCLUDE_DIR}/nccl.h _nccl_code REGEX "#define NCCL_VERSION_CODE")
message(STATUS "symm: NCCL ${SYMM_NCCL_LIBRARY} (${_nccl_code})")
add_library(symm_nccl INTERFACE)
add_library(symm::nccl ALIAS symm_nccl)
target_include_directories(symm_nccl INTERFACE ${SYMM_NCCL_INCLUDE_DIR})
target_link_libraries(symm_nccl INTERFACE ${SYMM_NCCL_LIBRARY})
