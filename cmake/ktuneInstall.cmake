# Install rules: `cmake --install <build> --prefix P` makes a package that another project
# uses with find_package(ktune CONFIG REQUIRED) and CMAKE_PREFIX_PATH=P (docs/install.md).
# It holds what ktune_add_kernel() needs from ktune: the `ktune` tool, which runs at the
# user's configure time (so nothing is built there from ktune's sources), the libraries
# that kernels' tuner programs and users' binaries link, the headers and the CMake modules.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_ktune_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/ktune")

# Installed, cuda.h comes from the user's CUDA toolkit, which the package config finds:
# the build's KTUNE_CUDA_INCLUDE is a path of this machine.
target_link_libraries(ktune_runtime PUBLIC "$<INSTALL_INTERFACE:CUDA::toolkit>")

# Imported as ktune::ktune, ktune::space, ktune::runtime, ktune::tuner, ktune::tuner_main:
# the names cmake/ktune.cmake looks for.
foreach(target space runtime tuner tuner_main)
  set_target_properties(ktune_${target} PROPERTIES EXPORT_NAME ${target})
endforeach()
install(TARGETS ktune ktune_space ktune_runtime ktune_tuner ktune_tuner_main
  EXPORT ktuneTargets
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
# `ktune tune --t1` runs this tuner from beside the tool (docs/t1.md).
if(TARGET ktune-t1-tuner)
  install(TARGETS ktune-t1-tuner RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
endif()
# The public headers: what users' code includes (the harness API, the launch template's
# types) and what the baked headers include (dispatch). The tuner's internals stay out;
# cmake.install checks that each one compiles alone from the installed prefix.
set(KTUNE_PUBLIC_HEADERS baked.hpp choose.hpp config.hpp cuda_arch.hpp dispatcher.hpp error.hpp gpu_info.hpp half.hpp
                         harness.hpp launch.hpp launch_resources.hpp)
list(TRANSFORM KTUNE_PUBLIC_HEADERS PREPEND tuner/include/ktune/)
install(FILES ${KTUNE_PUBLIC_HEADERS} DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/ktune")
install(FILES LICENSE DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/ktune")
install(EXPORT ktuneTargets NAMESPACE ktune:: DESTINATION "${_ktune_cmake_dir}")

# The header-only dependencies ktune was built with as bare headers (no CMake package):
# the installed config looks for those the same way, and for the others with find_dependency.
get_property(KTUNE_HEADER_ONLY_DEPS GLOBAL PROPERTY KTUNE_HEADER_ONLY_DEPS)
configure_package_config_file(cmake/ktuneConfig.cmake.in "${PROJECT_BINARY_DIR}/ktuneConfig.cmake"
  INSTALL_DESTINATION "${_ktune_cmake_dir}")
# 0.x: a new minor version may change what ktune_add_kernel() takes.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/ktuneConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/ktuneConfig.cmake" "${PROJECT_BINARY_DIR}/ktuneConfigVersion.cmake"
              cmake/ktune.cmake cmake/ktuneDependencies.cmake cmake/ktuneDbFiles.cmake
        DESTINATION "${_ktune_cmake_dir}")
