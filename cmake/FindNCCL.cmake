# FindNCCL: NCCL, for the baselines that measure symm's ops against it (optional).
#
# nccl.h is looked for in NCCL_ROOT (CMake or environment variable), the CUDA toolkit
# (/usr/local/cuda/include), the system (/usr/include), then the nvidia-nccl pip wheel
# (<site-packages>/nvidia/nccl, asked of the python3 on PATH). The library is taken from
# the same installation as the header (lib64, lib, lib/<multiarch>; the wheel ships only
# libnccl.so.2), so a header and a library of different versions are never paired.
#
# Sets NCCL_FOUND, NCCL_VERSION ("2.28.3"), NCCL_INCLUDE_DIR, NCCL_LIBRARY and the
# imported target NCCL::nccl.

set(_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT})
if(CUDAToolkit_INCLUDE_DIRS)
  list(APPEND _nccl_hints ${CUDAToolkit_INCLUDE_DIRS})
endif()
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} PATH_SUFFIXES include)

if(NOT NCCL_INCLUDE_DIR)
  find_program(NCCL_PYTHON_EXECUTABLE NAMES python3 python)
  mark_as_advanced(NCCL_PYTHON_EXECUTABLE)
  if(NCCL_PYTHON_EXECUTABLE)
    execute_process(
      COMMAND ${NCCL_PYTHON_EXECUTABLE} -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
      OUTPUT_VARIABLE _nccl_wheel_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_nccl_wheel_dir)
      find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_wheel_dir}/include NO_DEFAULT_PATH)
    endif()
  endif()
endif()

if(NCCL_INCLUDE_DIR)
  get_filename_component(_nccl_root ${NCCL_INCLUDE_DIR} DIRECTORY)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_nccl_root}
               PATH_SUFFIXES lib64 lib lib/${CMAKE_LIBRARY_ARCHITECTURE} NO_DEFAULT_PATH)

  file(STRINGS ${NCCL_INCLUDE_DIR}/nccl.h _nccl_defines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define NCCL_${_part} +([0-9]+).*" "\\1" _nccl_${_part} "${_nccl_defines}")
  endforeach()
  set(NCCL_VERSION ${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH})
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR
                                  VERSION_VAR NCCL_VERSION)
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)

if(NCCL_FOUND AND NOT TARGET NCCL::nccl)
  add_library(NCCL::nccl UNKNOWN IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES IMPORTED_LOCATION ${NCCL_LIBRARY}
                        INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR})
endif()
