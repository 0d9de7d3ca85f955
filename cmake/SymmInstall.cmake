# `cmake --install` puts headers, libraries, tools and a package config so that
# `find_package(symm CONFIG)` gives users symm::launch, symm::runtime, symm::device, symm::gemm,
# symm::baselines (which needs NCCL::nccl when built with NCCL: FindNCCL.cmake goes along).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/symm DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS symm_cuda_flags EXPORT symmTargets)

get_property(_symm_libs GLOBAL PROPERTY SYMM_EXPORTED_LIBRARIES)
if(_symm_libs)
  install(TARGETS ${_symm_libs} EXPORT symmTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
get_property(_symm_tools GLOBAL PROPERTY SYMM_INSTALLED_TOOLS)
if(_symm_tools)
  install(TARGETS ${_symm_tools} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(EXPORT symmTargets NAMESPACE symm:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/symm)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/symmConfig.cmake.in
  ${PROJECT_BINARY_DIR}/symmConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/symm)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/symmConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/symmConfig.cmake ${PROJECT_BINARY_DIR}/symmConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FindNCCL.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/symm)
