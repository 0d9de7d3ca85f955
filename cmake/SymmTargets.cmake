include(GoogleTest)

# Helpers that every subdirectory uses to declare its targets in one line.

# symm_export_library(target alias): installs and exports `target` as symm::<alias>.
function(symm_export_library target alias)
  add_library(symm::${alias} ALIAS ${target})
  set_property(TARGET ${target} PROPERTY EXPORT_NAME ${alias})
  set_property(GLOBAL APPEND PROPERTY SYMM_EXPORTED_LIBRARIES ${target})
  target_compile_features(${target} INTERFACE cxx_std_20)  # our headers are C++20
  # ... in .cu files too: CMake 3.25 cannot name cuda_std_20 for nvcc 13 (SymmCuda.cmake),
  # so an installed user's .cu files get symm::cuda_flags (-std=c++20, the nvcc flags our
  # headers need) through any library they link, as the README's example does.
  target_link_libraries(${target} INTERFACE $<INSTALL_INTERFACE:symm::cuda_flags>)
endfunction()

function(symm_install_tool target)
  set_property(GLOBAL APPEND PROPERTY SYMM_INSTALLED_TOOLS ${target})
endfunction()

# The exit code of a test binary whose selected tests all skipped (tests/support/gtest_main.cc).
set(SYMM_TEST_SKIP_EXIT_CODE 77)

# symm_add_test(name LABEL cpu|gpu|multigpu SOURCES ... LIBS ...): a GoogleTest binary
# registered with CTest. A gpu test that finds no GPU calls GTEST_SKIP(), which CTest
# reports as skipped (never as passed) through the skip exit code: a case that fails is
# reported failed whatever it printed.
function(symm_add_test name)
  cmake_parse_arguments(T "" "LABEL;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} symm_gtest_main symm::cuda_flags)
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  # One CTest test per test case, so one skipped case never hides the others. Listing the
  # cases loads the binary's CUDA libraries: seconds from a cold disk on a busy 2-core
  # machine, past the 5 s default (CI lost a run to it).
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 120
    PROPERTIES LABELS ${T_LABEL} TIMEOUT ${T_TIMEOUT}
               SKIP_RETURN_CODE ${SYMM_TEST_SKIP_EXIT_CODE})
endfunction()

# Adds every child folder that has a CMakeLists.txt, so areas can grow independently.
function(symm_add_child_dirs)
  file(GLOB _children LIST_DIRECTORIES true ${CMAKE_CURRENT_SOURCE_DIR}/*)
  list(SORT _children)
  foreach(_child ${_children})
    if(IS_DIRECTORY ${_child} AND EXISTS ${_child}/CMakeLists.txt)
      add_subdirectory(${_child})
    endif()
  endforeach()
endfunction()
