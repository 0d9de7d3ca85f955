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
