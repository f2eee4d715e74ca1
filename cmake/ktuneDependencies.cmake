# Header-only dependencies of the ktune tool: nlohmann/json and CLI11.
# Found as installed packages (Debian: nlohmann-json3-dev, libcli11-dev) or, on machines
# where nothing can be installed, in a packed prefix made by scripts/pack-deps.sh.
include_guard(GLOBAL)

set(KTUNE_DEPS_DIR "${CMAKE_CURRENT_LIST_DIR}/../.deps" CACHE PATH
    "Prefix with packed header-only dependencies (scripts/pack-deps.sh)")

function(_ktune_header_dep target header package_hint)
  if(TARGET ${target})
    return()
  endif()
  find_path(_ktune_inc_${package_hint} ${header}
            HINTS "${KTUNE_DEPS_DIR}/include" NO_CACHE)
  if(NOT _ktune_inc_${package_hint})
    message(FATAL_ERROR
      "ktune: ${header} not found. Install the Debian package ${package_hint} "
      "(scripts/deps.sh does it as root) or run scripts/pack-deps.sh on a machine "
      "that has it and set KTUNE_DEPS_DIR to the packed prefix.")
  endif()
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_ktune_inc_${package_hint}}")
  # The installed package config looks for these as headers too (cmake/ktuneInstall.cmake).
  set_property(GLOBAL APPEND PROPERTY KTUNE_HEADER_ONLY_DEPS ${target})
endfunction()

find_package(nlohmann_json 3.10 CONFIG QUIET)
if(NOT TARGET nlohmann_json::nlohmann_json)
  _ktune_header_dep(nlohmann_json::nlohmann_json nlohmann/json.hpp nlohmann-json3-dev)
endif()
find_package(CLI11 CONFIG QUIET)
if(NOT TARGET CLI11::CLI11)
  _ktune_header_dep(CLI11::CLI11 CLI/CLI.hpp libcli11-dev)
endif()
