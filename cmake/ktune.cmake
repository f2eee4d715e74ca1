# ktune_add_kernel(): declare a tunable CUDA kernel: its space, compiled to cubins as tuning needs.
#
#   ktune_add_kernel(<name>
#     SOURCE  <file.cu>                    kernel source; parameters arrive as -D macros
#     PARAMS  "<NAME>=<values>" ...        e.g. "TM=32,64,128" "TK=8..32:8" "TN=pow2(16..256)"
#     [WHERE  "<constraint>" ...]          C or Python syntax, Python semantics
#     [DEFAULT "<NAME>=<value> ..."]       fallback and baseline; default: first valid config
#     [FLAGS  <nvcc flag> ...]             extra nvcc flags for this kernel
#     [ARCH <arch>]                        this kernel's architecture instead of the project's,
#                                          e.g. 90a for wgmma (which only sm_90a has)
#     [INCLUDE_DIRS <dir> ...]             extra include directories for this kernel
#     [MAX_CONFIGS <n>]                    the most configs compiled and measured whole (default
#                                          KTUNE_MAX_CONFIGS): a larger space is searched within a budget
#     [ENTRY <function>]                   the kernel's extern "C" name (default: <name>)
#     [KEYS "<DIM>=<value> ..." ...]       problem sizes to tune for (with HARNESS)
#     [HARNESS <file.cpp>]                 defines ktune_harness(): inputs, launch, reference
#     [DB_DIRS <dir> ...]                  tuning DBs shipped with the project, for the bake
#     [STRATEGY <name>] [BUDGET <n>|<p>%|<s>s ...] [SEED <n>])  search (default: every config)
#
# The space is checked and enumerated at configure time by the `ktune` host tool (the same
# C++ engine the tuner uses), which writes <build>/_ktune/<name>/manifest.json and the list
# of cubin edges (the DEFAULT's; see below). Target ktune_<name>_cubins builds them, in the
# job pool ktune_nvcc. With HARNESS and KEYS, target ktune_<name>_tuner is the kernel's tuner
# and the build runs it (KTUNE_TUNE): every config (or those its search proposes) compiled
# and measured on the visible GPU for every key, results
# in the DB <KTUNE_DB_DIR>/<name>/<GPU model>.json. ktune_<name>_retune measures again.
# The bake step then writes the tables of best configs (from that DB, else DB_DIRS, else
# the DEFAULT only) as generated C++: library ktune::<name> (header ktune_<name>.hpp)
# launches the config chosen for the GPU it runs on and the key.
# The build compiles each space's DEFAULT only (the fallback every binary needs); the rest
# is compiled as it is needed: the tuner compiles the configs its search proposes (every one
# when the space is measured whole) in its own pool of KTUNE_COMPILE_JOBS, a new one whenever
# a compile ends, each cubin measured as soon as it exists; the bake compiles the winners.
# So a build that does not tune (no GPU, KTUNE_TUNE=OFF) compiles only what it bakes. Spaces
# of at most KTUNE_EAGER_LIMIT valid configs (0 by default) are compiled whole by the build
# instead, e.g. on a build farm that fills a compiler cache.
# Settings (cache variables): KTUNE_CUDA_ARCH, KTUNE_COMPILE_JOBS, KTUNE_MAX_CONFIGS,
# KTUNE_MAX_POINTS, KTUNE_EAGER_LIMIT, KTUNE_NVCC, KTUNE_HOST_TOOL, KTUNE_TUNER_LIBS, KTUNE_TUNE,
# KTUNE_DB_DIR; see docs/cmake.md.
include_guard(GLOBAL)

set(KTUNE_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." CACHE INTERNAL "ktune source tree")
get_filename_component(KTUNE_ROOT "${KTUNE_ROOT}" ABSOLUTE)

set(KTUNE_MAX_CONFIGS 10000 CACHE STRING
    "The most valid configs compiled and measured whole; a larger space is searched within a budget (default MAX_CONFIGS)")
set(KTUNE_MAX_POINTS 1000000000 CACHE STRING
    "Most points the enumeration of a space may visit before the configure gives up (a huge product whose constraints bind late)")
set(KTUNE_EAGER_LIMIT 0 CACHE STRING
    "Spaces of at most this many valid configs are compiled whole by the build; others (all, by default) as the tuner and the bake need them")
set(KTUNE_CUDA_ARCH "" CACHE STRING
    "Architectures baked, as CMAKE_CUDA_ARCHITECTURES writes them (90, 90a, 80;90, 80-real;90-virtual, all-major, native); empty: CMAKE_CUDA_ARCHITECTURES, else the visible GPU, else 90")
set(KTUNE_HOST_TOOL "" CACHE FILEPATH
    "A built `ktune` tool to use at configure time; empty: the installed package's, else build one into <build>/_ktune/host")
set(KTUNE_TUNER_LIBS "" CACHE PATH
    "Directory of built libktune_{space,tuner,tuner_main}.a (with KTUNE_HOST_TOOL); empty: the host build's")
set(KTUNE_TUNE AUTO CACHE STRING "Tune during the build: AUTO (when a GPU is visible), ON (a GPU is required), OFF")
set_property(CACHE KTUNE_TUNE PROPERTY STRINGS AUTO ON OFF)
set(KTUNE_GPUS "" CACHE STRING
    "GPUs the tune step measures on, one worker each, e.g. 0,1 (numbered after CUDA_VISIBLE_DEVICES); empty: every visible GPU")
set(KTUNE_DB_DIR "${CMAKE_BINARY_DIR}/ktune-db" CACHE PATH
    "Where tuning DBs live: <dir>/<kernel>/<GPU model>.json")

# nvcc is memory-hungry: by default one job per core, at most one per GiB of memory.
cmake_host_system_information(RESULT _ktune_cores QUERY NUMBER_OF_LOGICAL_CORES)
cmake_host_system_information(RESULT _ktune_mem_mib QUERY TOTAL_PHYSICAL_MEMORY)
math(EXPR _ktune_mem_jobs "${_ktune_mem_mib} / 1024")
if(_ktune_mem_jobs LESS _ktune_cores)
  set(_ktune_cores ${_ktune_mem_jobs})
endif()
if(_ktune_cores LESS 1)
  set(_ktune_cores 1)
endif()
set(KTUNE_COMPILE_JOBS ${_ktune_cores} CACHE STRING
    "Parallel nvcc jobs for ktune cubins (Ninja job pool ktune_nvcc)")
if(NOT KTUNE_COMPILE_JOBS MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "KTUNE_COMPILE_JOBS='${KTUNE_COMPILE_JOBS}' is not a positive integer; "
                      "set e.g. -DKTUNE_COMPILE_JOBS=4")
endif()
set_property(GLOBAL APPEND PROPERTY JOB_POOLS "ktune_nvcc=${KTUNE_COMPILE_JOBS}")

# --- the toolchain ---------------------------------------------------------------------

function(_ktune_find_nvcc)
  if(KTUNE_NVCC)
    return()
  endif()
  if(CMAKE_CUDA_COMPILER)
    set(KTUNE_NVCC "${CMAKE_CUDA_COMPILER}" CACHE FILEPATH "nvcc used for ktune cubins")
    return()
  endif()
  find_program(KTUNE_NVCC nvcc HINTS "$ENV{CUDA_PATH}/bin" "$ENV{CUDA_HOME}/bin" /usr/local/cuda/bin
               DOC "nvcc used for ktune cubins")
  if(NOT KTUNE_NVCC)
    message(FATAL_ERROR "ktune: nvcc not found; install the CUDA toolkit or set -DKTUNE_NVCC=/path/to/nvcc")
  endif()
endfunction()

# The architectures of the GPUs visible now (empty when none), newest first, through the
# toolkit's own query.
function(_ktune_visible_archs out)
  get_filename_component(bindir "${KTUNE_NVCC}" DIRECTORY)
  set(${out} "" PARENT_SCOPE)
  if(NOT EXISTS "${bindir}/__nvcc_device_query")
    return()
  endif()
  execute_process(COMMAND "${bindir}/__nvcc_device_query" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE archs ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0 AND archs MATCHES "^[0-9]+")
    string(REGEX MATCHALL "[0-9]+" archs "${archs}")
    list(REMOVE_DUPLICATES archs)
    list(SORT archs COMPARE NATURAL ORDER DESCENDING)
    set(${out} "${archs}" PARENT_SCOPE)
  endif()
endfunction()

# The architectures nvcc compiles cubins for ("75;80;...;121").
function(_ktune_nvcc_archs out)
  execute_process(COMMAND "${KTUNE_NVCC}" --list-gpu-code RESULT_VARIABLE rc
                  OUTPUT_VARIABLE codes ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(REGEX MATCHALL "sm_[0-9]+" codes "${codes}")
  list(TRANSFORM codes REPLACE "^sm_" "")
  set(${out} "${codes}" PARENT_SCOPE)
endfunction()

# An architecture's number without its suffix: 90a -> 90, for comparisons.
function(_ktune_arch_number arch out)
  string(REGEX REPLACE "[af]$" "" n "${arch}")
  set(${out} "${n}" PARENT_SCOPE)
endfunction()

# The list `value` (from `why`) as CMAKE_CUDA_ARCHITECTURES reads it: "80;90" compiles cubins
# and PTX for each, "80-real" cubins only, "90-virtual" PTX only, "90a" an arch-specific
# target; all, all-major and native as a whole value. Sets <out>_REAL and <out>_VIRTUAL.
function(_ktune_parse_archs value why out)
  set(real "")
  set(virtual "")
  if(value STREQUAL "native")
    _ktune_visible_archs(real)
    if(real STREQUAL "")
      message(FATAL_ERROR "ktune: ${why} is native but no GPU is visible; name the architectures, e.g. 90 or 80;90")
    endif()
    set(virtual "${real}")
  elseif(value STREQUAL "all" OR value STREQUAL "all-major")
    _ktune_nvcc_archs(real)
    if(value STREQUAL "all-major")
      list(FILTER real INCLUDE REGEX "0$")
    endif()
    if(real STREQUAL "")
      message(FATAL_ERROR "ktune: ${why} is ${value}, but ${KTUNE_NVCC} --list-gpu-code names no architecture")
    endif()
    list(SORT real COMPARE NATURAL)
    list(GET real -1 virtual)
  else()
    foreach(item IN LISTS value)
      if(NOT item MATCHES "^([1-9][0-9]+[af]?)(-real|-virtual)?$")
        message(FATAL_ERROR "ktune: '${item}' (from ${why}) is not a CUDA architecture; write them as "
                            "CMAKE_CUDA_ARCHITECTURES does, e.g. 90, 90a, 80;90, 80-real;90-virtual, all-major or native")
      endif()
      if(NOT CMAKE_MATCH_2 STREQUAL "-virtual")
        list(APPEND real "${CMAKE_MATCH_1}")
      endif()
      if(NOT CMAKE_MATCH_2 STREQUAL "-real")
        list(APPEND virtual "${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endif()
  list(REMOVE_DUPLICATES real)
  list(REMOVE_DUPLICATES virtual)
  if(real STREQUAL "")
    message(FATAL_ERROR "ktune: ${why} '${value}' lists no real architecture; ktune compiles cubins, so name at "
                        "least one (e.g. 90, or 90-real;100-virtual)")
  endif()
  _ktune_nvcc_archs(supported)
  if(supported)
    foreach(a IN LISTS real virtual)
      _ktune_arch_number("${a}" n)
      if(NOT n IN_LIST supported)
        string(REPLACE ";" ", " names "${supported}")
        message(FATAL_ERROR "ktune: ${why} names ${a}, which this nvcc (${KTUNE_NVCC}) does not compile for; "
                            "it compiles for ${names}")
      endif()
    endforeach()
  endif()
  set(${out}_REAL "${real}" PARENT_SCOPE)
  set(${out}_VIRTUAL "${virtual}" PARENT_SCOPE)
endfunction()

# Of the real architectures `archs`, the one whose cubins a GPU of architecture `gpu` (e.g.
# 86) runs best: same major, the highest minor at most the GPU's; an arch-specific one only
# on its own GPU. Empty when none runs there.
function(_ktune_arch_for_gpu archs gpu out)
  set(best "")
  set(best_minor -1)
  string(REGEX REPLACE "[0-9]$" "" gpu_major "${gpu}")
  string(REGEX REPLACE "^.*([0-9])$" "\\1" gpu_minor "${gpu}")
  foreach(a IN LISTS archs)
    _ktune_arch_number("${a}" n)
    string(REGEX REPLACE "[0-9]$" "" major "${n}")
    string(REGEX REPLACE "^.*([0-9])$" "\\1" minor "${n}")
    if(NOT major STREQUAL gpu_major OR minor GREATER gpu_minor)
      continue()
    endif()
    if(NOT a STREQUAL n AND NOT minor EQUAL gpu_minor)
      continue()  # arch-specific: its own GPU only
    endif()
    if(minor GREATER best_minor OR (minor EQUAL best_minor AND NOT a STREQUAL n))
      set(best "${a}")
      set(best_minor "${minor}")
    endif()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

# The project's architectures: KTUNE_RESOLVED_ARCHS (every real one: the bake embeds cubins
# for each), KTUNE_RESOLVED_PTX_ARCH (the highest virtual one: the DEFAULT's PTX, for GPUs
# newer than any listed; empty when every entry is -real) and KTUNE_RESOLVED_ARCH (the one
# the build compiles spaces for and tunes: the listed one the visible GPU runs best, else
# the newest listed).
function(_ktune_resolve_arch)
  get_property(done GLOBAL PROPERTY KTUNE_ARCH_RESOLVED)
  if(done)
    return()
  endif()
  set(value "${KTUNE_CUDA_ARCH}")
  set(why "KTUNE_CUDA_ARCH")
  if(value STREQUAL "" AND CMAKE_CUDA_ARCHITECTURES AND NOT CMAKE_CUDA_ARCHITECTURES STREQUAL "OFF")
    set(value "${CMAKE_CUDA_ARCHITECTURES}")
    set(why "CMAKE_CUDA_ARCHITECTURES")
  endif()
  _ktune_visible_archs(visible_all)
  set(visible "")
  if(visible_all)
    list(GET visible_all 0 visible)
  endif()
  if(value STREQUAL "")
    if(visible)
      set(value "${visible}")
      set(why "the visible GPU")
    else()
      set(value 90)
      set(why "no GPU visible: the default, Hopper")
    endif()
  endif()
  _ktune_parse_archs("${value}" "${why}" parsed)
  set(archs "${parsed_REAL}")
  set(ptx_arch "")
  foreach(v IN LISTS parsed_VIRTUAL)
    _ktune_arch_number("${v}" n)
    _ktune_arch_number("${ptx_arch}" best)
    if(ptx_arch STREQUAL "" OR n GREATER best)
      set(ptx_arch "${v}")
    endif()
  endforeach()
  set(arch "")
  if(visible)
    _ktune_arch_for_gpu("${archs}" "${visible}" arch)
  endif()
  set(tune_note "")
  if(arch STREQUAL "")
    set(arch "")
    foreach(a IN LISTS archs)
      _ktune_arch_number("${a}" n)
      _ktune_arch_number("${arch}" best)
      if(arch STREQUAL "" OR n GREATER best)
        set(arch "${a}")
      endif()
    endforeach()
    if(visible)
      string(REPLACE ";" ", " names "${archs}")
      set(tune_note "the visible GPU (sm_${visible}) runs none of these cubins (${names}): nothing is tuned on it; ")
    endif()
  endif()
  set(KTUNE_RESOLVED_ARCH "${arch}" CACHE INTERNAL "")
  set(KTUNE_RESOLVED_ARCHS "${archs}" CACHE INTERNAL "")
  set(KTUNE_RESOLVED_PTX_ARCH "${ptx_arch}" CACHE INTERNAL "")
  set(KTUNE_RESOLVED_CAN_TUNE "${visible}" CACHE INTERNAL "")
  if(tune_note)
    set(KTUNE_RESOLVED_CAN_TUNE "" CACHE INTERNAL "")
  endif()
  set_property(GLOBAL PROPERTY KTUNE_ARCH_RESOLVED TRUE)
  string(REPLACE ";" ", sm_" list_text "sm_${archs}")
  if(ptx_arch STREQUAL "")
    set(ptx_text "no PTX")
  else()
    set(ptx_text "PTX compute_${ptx_arch}")
  endif()
  list(LENGTH archs n_archs)
  if(n_archs GREATER 1)
    message(STATUS "ktune: cubins for ${list_text} and ${ptx_text} (${why}); spaces compiled and tuned for "
                   "sm_${arch}, the others get the DEFAULT and their tables' winners; "
                   "${KTUNE_COMPILE_JOBS} parallel nvcc jobs")
  else()
    message(STATUS "ktune: cubins for sm_${arch}, ${ptx_text} (${why}), ${KTUNE_COMPILE_JOBS} parallel nvcc jobs")
  endif()
  # What the build will compile on this machine: tuning compiles the spaces, a build that
  # does not tune only what it bakes.
  if(tune_note)
    set(visible "")
  endif()
  if(KTUNE_TUNE STREQUAL "OFF")
    set(plan "KTUNE_TUNE=OFF: nothing is tuned; each kernel compiles its DEFAULT and the winners its DBs name")
  elseif(tune_note)
    set(plan "${tune_note}each kernel compiles its DEFAULT and the winners its DBs name")
  elseif(visible STREQUAL "" AND KTUNE_TUNE STREQUAL "AUTO")
    set(plan "no GPU visible: nothing is tuned; each kernel compiles its DEFAULT and the winners its DBs name")
    string(APPEND plan " (a GPU visible when the build runs is tuned on)")
  else()
    set(plan "tuning on the visible GPU: each tuned kernel's tune step compiles the configs it measures")
  endif()
  if(NOT KTUNE_EAGER_LIMIT STREQUAL "0")
    string(APPEND plan "; spaces of at most ${KTUNE_EAGER_LIMIT} configs are compiled whole by the build")
  endif()
  message(STATUS "ktune: ${plan}")
endfunction()

# The `ktune` host tool, built from tuner/ at configure time (once; later configures only
# check it is up to date) so ktune_add_kernel() runs the real space engine. An installed
# package brings it built.
function(_ktune_host_tool)
  get_property(tool GLOBAL PROPERTY KTUNE_TOOL)
  if(tool)
    return()
  endif()
  if(KTUNE_HOST_TOOL)
    if(NOT EXISTS "${KTUNE_HOST_TOOL}")
      message(FATAL_ERROR "ktune: KTUNE_HOST_TOOL=${KTUNE_HOST_TOOL} does not exist; build it or unset it")
    endif()
    set_property(GLOBAL PROPERTY KTUNE_TOOL "${KTUNE_HOST_TOOL}")
    return()
  endif()
  if(TARGET ktune::ktune)  # an installed package: its own tool (cmake/ktuneConfig.cmake.in)
    get_target_property(tool ktune::ktune LOCATION)
    set_property(GLOBAL PROPERTY KTUNE_TOOL "${tool}")
    return()
  endif()
  set(dir "${CMAKE_BINARY_DIR}/_ktune/host")
  if(NOT EXISTS "${dir}/CMakeCache.txt")
    set(args -S "${KTUNE_ROOT}/tuner" -B "${dir}" -DCMAKE_BUILD_TYPE=Release
             "-DKTUNE_DEPS_DIR=${KTUNE_DEPS_DIR}")
    if(CMAKE_GENERATOR MATCHES "^(Ninja|Unix Makefiles)$")
      list(APPEND args -G "${CMAKE_GENERATOR}")
    endif()
    if(CMAKE_CXX_COMPILER)
      list(APPEND args "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}")
    endif()
    message(STATUS "ktune: building the ktune host tool in ${dir}")
    execute_process(COMMAND "${CMAKE_COMMAND}" ${args} RESULT_VARIABLE rc
                    OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
      file(REMOVE "${dir}/CMakeCache.txt")
      message(FATAL_ERROR "ktune: configuring the host tool failed:\n${out}")
    endif()
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${dir}" --target ktune ktune_tuner_main --parallel
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ktune: building the host tool failed:\n${out}")
  endif()
  set_property(GLOBAL PROPERTY KTUNE_TOOL "${dir}/bin/ktune")
  set_property(GLOBAL PROPERTY KTUNE_LIB_DIR "${dir}")
endfunction()

# The tuner's libraries as imported targets, from the host build (or KTUNE_TUNER_LIBS).
function(_ktune_tuner_libraries)
  if(TARGET ktune::tuner_main)
    return()
  endif()
  if(TARGET ktune_tuner_main)  # inside the ktune project itself
    add_library(ktune::tuner_main ALIAS ktune_tuner_main)
    return()
  endif()
  get_property(dir GLOBAL PROPERTY KTUNE_LIB_DIR)
  if(KTUNE_TUNER_LIBS)
    set(dir "${KTUNE_TUNER_LIBS}")
  endif()
  if(NOT dir OR NOT EXISTS "${dir}/libktune_tuner_main.a")
    message(FATAL_ERROR "ktune: the tuner libraries are not in '${dir}'; with KTUNE_HOST_TOOL "
                        "set KTUNE_TUNER_LIBS to the directory of libktune_tuner_main.a")
  endif()
  get_filename_component(nvcc_dir "${KTUNE_NVCC}" DIRECTORY)
  foreach(lib space runtime tuner tuner_main)
    add_library(ktune::host_${lib} STATIC IMPORTED GLOBAL)
    set_target_properties(ktune::host_${lib} PROPERTIES IMPORTED_LOCATION "${dir}/libktune_${lib}.a")
  endforeach()
  add_library(ktune::tuner_main ALIAS ktune::host_tuner_main)
  set_target_properties(ktune::host_tuner_main PROPERTIES INTERFACE_LINK_LIBRARIES ktune::host_tuner)
  set_target_properties(ktune::host_tuner PROPERTIES
    INTERFACE_LINK_LIBRARIES "ktune::host_space;ktune::host_runtime")
  set_target_properties(ktune::host_runtime PROPERTIES
    INTERFACE_LINK_LIBRARIES "${CMAKE_DL_LIBS}"
    INTERFACE_INCLUDE_DIRECTORIES "${KTUNE_ROOT}/tuner/include;${nvcc_dir}/../include")
endfunction()

# Rewrites <build>/_ktune/gpu.json on every build, but only when the GPU changed: the tune
# steps depend on it, so another GPU (or driver) tunes again and the same one does not.
function(_ktune_gpu_identity_step out_var)
  set(file "${CMAKE_BINARY_DIR}/_ktune/gpu.json")
  if(NOT TARGET ktune_gpu_identity)
    get_property(tool GLOBAL PROPERTY KTUNE_TOOL)
    add_custom_target(ktune_gpu_identity
      COMMAND "${tool}" gpu --out "${file}"
      BYPRODUCTS "${file}"
      VERBATIM)
  endif()
  set(${out_var} "${file}" PARENT_SCOPE)
endfunction()

# --- ktune_add_kernel ------------------------------------------------------------------

# Each ktune_add_kernel step below is a function of its own; a function sees its caller's
# variables (the parsed arg_* among them) and hands its results back with PARENT_SCOPE.

# What cmake_parse_arguments lets through: an empty value and a repeated keyword (it drops
# the one and keeps the last of the other) both hide a mistake (a variable that is not set,
# a copied line), and a misspelt keyword after a list keyword reads as one of its values.
# Reads the arguments as the caller copied them, raw_1..raw_<raw_count>: ARGN would drop
# the empty ones and split any holding a ';'.
function(_ktune_check_raw_arguments where keywords list_keywords all_keywords)
  set(current "")
  set(seen "")
  foreach(i RANGE 1 ${raw_count})
    set(arg "${raw_${i}}")
    if(arg IN_LIST keywords OR arg IN_LIST list_keywords)
      if(arg IN_LIST keywords AND arg IN_LIST seen)
        message(FATAL_ERROR "${where}: ${arg} is given twice; give it once")
      endif()
      list(APPEND seen "${arg}")
      set(current "${arg}")
    elseif(arg STREQUAL "" AND NOT current STREQUAL "")
      message(FATAL_ERROR "${where}: ${current} has an empty value (a variable that is not set?); "
                          "give a value or drop it")
    elseif(current IN_LIST list_keywords AND arg MATCHES "^[A-Z][A-Z_]+$")
      # PARAMS, KEYS, FLAGS and BUDGET values are never a bare upper-case word; WHERE and the
      # directories' may be, so there only a keyword cut short or lengthened (WHER, PARAM,
      # INCLUDE_DIR) counts.
      set(misspelt FALSE)
      if(current MATCHES "^(PARAMS|KEYS|FLAGS|BUDGET)$")
        set(misspelt TRUE)
      else()
        foreach(kw IN LISTS keywords list_keywords)
          string(FIND "${kw}" "${arg}" at_kw)
          string(FIND "${arg}" "${kw}" at_arg)
          string(LENGTH "${arg}" arg_length)
          if(arg_length GREATER 2 AND (at_kw EQUAL 0 OR at_arg EQUAL 0))
            set(misspelt TRUE)
          endif()
        endforeach()
      endif()
      if(misspelt)
        message(FATAL_ERROR "${where}: unknown keyword '${arg}' (read as a value of ${current}); "
                            "ktune_add_kernel takes ${all_keywords}")
      endif()
    endif()
  endforeach()
endfunction()

# The kernel's name: a C identifier whose targets (ktune_<name>[_cubins|_tune|_tuner|_retune],
# ktune::<name>) no other kernel and nothing of ktune's already make. Registers it.
function(_ktune_claim_name name where)
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${where}: the kernel name is not a C identifier; use letters, digits and '_'")
  endif()
  get_property(kernels GLOBAL PROPERTY KTUNE_KERNELS)
  if(name IN_LIST kernels)
    message(FATAL_ERROR "${where}: a kernel named '${name}' was already added; give each kernel its own name")
  endif()
  if(name MATCHES "^(runtime|space|tuner|tuner_main|replay|gpu_identity|examples)$")
    message(FATAL_ERROR "${where}: the kernel name would make target ktune_${name}, which is ktune's own; "
                        "rename the kernel")
  endif()
  # ktune::ktune is the installed ktune tool, ktune::host_* the libraries of the tool built
  # at configure time.
  if(name MATCHES "^(ktune|host_runtime|host_space|host_tuner|host_tuner_main)$")
    message(FATAL_ERROR "${where}: the kernel name would make target ktune::${name}, which is ktune's own; "
                        "rename the kernel")
  endif()
  foreach(other IN LISTS kernels)
    foreach(suffix cubins tune tuner retune)
      if(name STREQUAL "${other}_${suffix}" OR other STREQUAL "${name}_${suffix}")
        string(LENGTH "${name}" name_length)
        string(LENGTH "${other}" other_length)
        set(clash "${name}")
        if(other_length GREATER name_length)
          set(clash "${other}")
        endif()
        message(FATAL_ERROR "${where}: kernels '${other}' and '${name}' would both make target "
                            "ktune_${clash}; rename one of them")
      endif()
    endforeach()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY KTUNE_KERNELS "${name}")
endfunction()

# SOURCE and HARNESS (with KEYS, each needs the other) as absolute paths of files:
# sets `source` and, with HARNESS, `harness`.
function(_ktune_kernel_files name where)
  if(NOT DEFINED arg_SOURCE)
    message(FATAL_ERROR "${where}: SOURCE is missing; name the kernel's .cu file, e.g. SOURCE kernels/${name}.cu")
  endif()
  get_filename_component(source "${arg_SOURCE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${source}")
    message(FATAL_ERROR "${where}: SOURCE ${arg_SOURCE} does not exist (looked for ${source})")
  endif()
  if(IS_DIRECTORY "${source}")
    message(FATAL_ERROR "${where}: SOURCE ${arg_SOURCE} is a directory; name the kernel's .cu file")
  endif()
  if(NOT arg_PARAMS)
    message(FATAL_ERROR "${where}: PARAMS is missing; declare the tunable parameters, e.g. PARAMS \"TM=32,64,128\"")
  endif()
  if(DEFINED arg_HARNESS AND NOT arg_KEYS)
    message(FATAL_ERROR "${where}: HARNESS is given without KEYS; list the problem sizes to tune "
                        "for, e.g. KEYS \"M=4096 N=4096 K=4096\"")
  endif()
  if(arg_KEYS AND NOT DEFINED arg_HARNESS)
    message(FATAL_ERROR "${where}: KEYS are given without HARNESS; name the C++ file that defines "
                        "ktune_harness(), e.g. HARNESS ${name}_harness.cpp")
  endif()
  set(source "${source}" PARENT_SCOPE)
  if(DEFINED arg_HARNESS)
    get_filename_component(harness "${arg_HARNESS}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${harness}")
      message(FATAL_ERROR "${where}: HARNESS ${arg_HARNESS} does not exist (looked for ${harness})")
    endif()
    if(IS_DIRECTORY "${harness}")
      message(FATAL_ERROR "${where}: HARNESS ${arg_HARNESS} is a directory; name the C++ file that "
                          "defines ktune_harness()")
    endif()
    set(harness "${harness}" PARENT_SCOPE)
  endif()
endfunction()

# The search, which configs the tuner measures (all of them unless told otherwise), as the
# tuner's options: sets `search_args`.
function(_ktune_search_args where)
  set(search_args "")
  if(DEFINED arg_STRATEGY)
    # The name is checked by `ktune plan` against the strategy table (search_choice.cpp).
    list(APPEND search_args "--strategy=${arg_STRATEGY}")
  endif()
  # One budget of configs (a count or a share) and one of time at most: the tuner would take
  # only the last of two. Counts and seconds stay within what the tuner reads (18 digits).
  set(config_budget "")
  set(time_budget "")
  foreach(b IN LISTS arg_BUDGET)
    string(LENGTH "${b}" digits)
    if(b MATCHES "^[1-9][0-9]*s?$" AND digits GREATER 18 AND NOT (b MATCHES "s$" AND digits EQUAL 19))
      message(FATAL_ERROR "${where}: BUDGET '${b}' is too large; give at most 18 digits")
    endif()
    if(b MATCHES "^[1-9][0-9]*$" OR (b MATCHES "^([0-9]+(\\.[0-9]+)?)%$" AND NOT b MATCHES "^0+(\\.0*)?%$"))
      if(b MATCHES "^([0-9.]+)%$")
        if(CMAKE_MATCH_1 GREATER 100)
          message(FATAL_ERROR "${where}: BUDGET '${b}' is more than the whole space; give a share up to 100%")
        endif()
      endif()
      if(NOT config_budget STREQUAL "")
        message(FATAL_ERROR "${where}: BUDGET gives two budgets of configs, '${config_budget}' and '${b}'; "
                            "give one count (200) or share (5%), and at most one time (600s)")
      endif()
      set(config_budget "${b}")
      list(APPEND search_args "--budget=${b}")
    elseif(b MATCHES "^([1-9][0-9]*)s$")
      if(NOT time_budget STREQUAL "")
        message(FATAL_ERROR "${where}: BUDGET gives two times, '${time_budget}' and '${b}'; give one "
                            "time per key (600s), and at most one count or share of configs")
      endif()
      set(time_budget "${b}")
      list(APPEND search_args "--seconds=${CMAKE_MATCH_1}")
    else()
      message(FATAL_ERROR "${where}: BUDGET '${b}' is not a count of configs (200), a share of the "
                          "space (5%) or seconds per key (600s)")
    endif()
  endforeach()
  if(DEFINED arg_SEED)
    if(NOT arg_SEED MATCHES "^[0-9]+$")
      message(FATAL_ERROR "${where}: SEED '${arg_SEED}' is not a non-negative integer")
    endif()
    string(LENGTH "${arg_SEED}" digits)
    if(digits GREATER 19)
      message(FATAL_ERROR "${where}: SEED '${arg_SEED}' is too large; give at most 19 digits")
    endif()
    list(APPEND search_args "--seed=${arg_SEED}")
  endif()
  if(search_args AND NOT DEFINED arg_HARNESS)
    message(FATAL_ERROR "${where}: STRATEGY, BUDGET and SEED steer tuning, which needs KEYS and "
                        "HARNESS; add them or drop the search options")
  endif()
  set(search_args "${search_args}" PARENT_SCOPE)
endfunction()

# The project's ktune settings, and the kernel's MAX_CONFIGS over KTUNE_MAX_CONFIGS: sets
# `max_configs`. (FLAGS are checked by `ktune plan`, tuner/src/compile/nvcc_flags.cpp: one
# rule with a T1 spec's CompilerOptions.)
function(_ktune_check_settings where)
  if(NOT KTUNE_TUNE MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "ktune: KTUNE_TUNE='${KTUNE_TUNE}'; use AUTO, ON or OFF")
  endif()
  if(NOT KTUNE_GPUS MATCHES "^([0-9]+(,[0-9]+)*)?$")
    message(FATAL_ERROR "ktune: KTUNE_GPUS='${KTUNE_GPUS}'; list GPU numbers with commas, e.g. 0,1, "
                        "or leave it empty for every visible GPU")
  endif()
  set(max_configs "${KTUNE_MAX_CONFIGS}")
  if(DEFINED arg_MAX_CONFIGS)
    set(max_configs "${arg_MAX_CONFIGS}")
  endif()
  if(NOT max_configs MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "${where}: MAX_CONFIGS '${max_configs}' is not a positive integer")
  endif()
  string(LENGTH "${max_configs}" digits)
  if(digits GREATER 18)
    message(FATAL_ERROR "${where}: MAX_CONFIGS '${max_configs}' is too large; give at most 18 digits")
  endif()
  string(LENGTH "${KTUNE_MAX_POINTS}" digits)
  if(NOT KTUNE_MAX_POINTS MATCHES "^[1-9][0-9]*$" OR digits GREATER 18)
    message(FATAL_ERROR "ktune: KTUNE_MAX_POINTS='${KTUNE_MAX_POINTS}' is not a positive integer of at most 18 digits; "
                        "set e.g. -DKTUNE_MAX_POINTS=1000000000")
  endif()
  if(NOT KTUNE_EAGER_LIMIT MATCHES "^[0-9]+$")
    message(FATAL_ERROR "ktune: KTUNE_EAGER_LIMIT='${KTUNE_EAGER_LIMIT}' is not a non-negative integer; "
                        "set e.g. -DKTUNE_EAGER_LIMIT=512")
  endif()
  set(max_configs "${max_configs}" PARENT_SCOPE)
endfunction()

# The architectures the kernel is built for: the project's, or its own ARCH (a kernel built
# on architecture-specific instructions, wgmma: sm_90a, is built for that one only, its
# cubins and its PTX). Sets `arch`, `archs` and `ptx_arch`.
function(_ktune_kernel_archs where)
  set(arch "${KTUNE_RESOLVED_ARCH}")
  set(archs "${KTUNE_RESOLVED_ARCHS}")
  set(ptx_arch "${KTUNE_RESOLVED_PTX_ARCH}")
  if(DEFINED arg_ARCH)
    if(NOT arg_ARCH MATCHES "^[1-9][0-9]+[af]?$")
      message(FATAL_ERROR "${where}: ARCH '${arg_ARCH}' is not a CUDA architecture; give its number as "
                          "in sm_<arch>, e.g. ARCH 90a")
    endif()
    set(arch "${arg_ARCH}")
    set(archs "${arg_ARCH}")
    set(ptx_arch "${arg_ARCH}")
    _ktune_arch_number("${arch}" kernel_number)
    set(listed FALSE)
    foreach(a IN LISTS KTUNE_RESOLVED_ARCHS)
      _ktune_arch_number("${a}" n)
      if(n STREQUAL kernel_number)
        set(listed TRUE)
      endif()
    endforeach()
    if(NOT listed)
      string(REPLACE ";" ", sm_" names "sm_${KTUNE_RESOLVED_ARCHS}")
      message(WARNING "${where}: ARCH ${arch} is none of the architectures ktune builds for (${names}): "
                      "its cubins load only on sm_${kernel_number} GPUs, so it is not tuned or run on the others")
    endif()
  endif()
  set(arch "${arch}" PARENT_SCOPE)
  set(archs "${archs}" PARENT_SCOPE)
  set(ptx_arch "${ptx_arch}" PARENT_SCOPE)
endfunction()

# A list of directories, relative to the calling CMakeLists, as absolute paths that must
# exist: sets `out`. `what` ends the message for one that is not a directory.
function(_ktune_directories where keyword dirs what out)
  set(result "")
  foreach(dir IN LISTS dirs)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT IS_DIRECTORY "${dir}")
      message(FATAL_ERROR "${where}: ${keyword} entry ${dir} is not a directory${what}")
    endif()
    list(APPEND result "${dir}")
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# `ktune plan`: the space enumerated, checked and written under out_dir (manifest.json,
# configs.cmake) from the kernel's arguments.
function(_ktune_plan name where tool out_dir source max_configs search_args)
  _ktune_directories("${where}" INCLUDE_DIRS "${arg_INCLUDE_DIRS}" "" include_dirs)
  set(plan_args --kernel "${name}" --source "${source}" --out-dir "${out_dir}" --tool "${tool}"
                --max-configs "${max_configs}" --max-points "${KTUNE_MAX_POINTS}" --eager-limit "${KTUNE_EAGER_LIMIT}"
                "--nvcc=${KTUNE_NVCC}" "--arch=${arch}" "--ptx-arch=${ptx_arch}")
  foreach(option_list IN ITEMS "archs;archs" "launcher;CMAKE_CUDA_COMPILER_LAUNCHER" "param;arg_PARAMS"
                               "where;arg_WHERE" "flag;arg_FLAGS" "include-dir;include_dirs" "key;arg_KEYS")
    list(GET option_list 0 option)
    list(GET option_list 1 variable)
    foreach(value IN LISTS ${variable})
      list(APPEND plan_args "--${option}=${value}")
    endforeach()
  endforeach()
  if(DEFINED arg_DEFAULT)
    list(APPEND plan_args "--default=${arg_DEFAULT}")
  endif()
  if(DEFINED arg_ENTRY)
    list(APPEND plan_args "--entry=${arg_ENTRY}")
  endif()
  if(DEFINED arg_HARNESS)
    list(APPEND plan_args --tuned ${search_args})
  endif()
  execute_process(COMMAND "${tool}" plan ${plan_args} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    string(REGEX REPLACE "^ktune: error: " "" err "${err}")
    message(FATAL_ERROR "${where}: ${err}")
  endif()
  message(STATUS "ktune: ${out}")
endfunction()

# The compile steps `ktune plan` wrote into configs.cmake: the DEFAULT as PTX (what runs,
# through the driver's JIT, on GPUs nothing was compiled for) and, unless the space is
# compiled on demand, one cubin per config, summed up by `ktune cubins` (how many compiled,
# which failed and where the logs are) in target ktune_<name>_cubins.
function(_ktune_add_compile_steps name tool out_dir source)
  set(_ktune_kernel_dir "${out_dir}")
  set(_ktune_source "${source}")
  set(_ktune_records "")
  include("${out_dir}/configs.cmake")
  add_custom_command(
    OUTPUT "${out_dir}/default.ptx"
    COMMAND ${_ktune_default_ptx_command}
    DEPENDS "${source}"
    DEPFILE "${out_dir}/deps/default_ptx.d"
    JOB_POOL ktune_nvcc
    COMMENT "ktune: ${name} DEFAULT config as PTX"
    VERBATIM)
  add_custom_command(
    OUTPUT "${out_dir}/cubins.json"
    COMMAND "${tool}" cubins "${out_dir}/manifest.json" --out "${out_dir}/cubins.json"
    DEPENDS ${_ktune_records} "${out_dir}/manifest.json"
    VERBATIM)
  add_custom_target(ktune_${name}_cubins ALL DEPENDS "${out_dir}/cubins.json")
  set_target_properties(ktune_${name}_cubins PROPERTIES
    KTUNE_MANIFEST "${out_dir}/manifest.json")
endfunction()

function(ktune_add_kernel name)
  set(where "ktune_add_kernel(${name})")
  set(keywords SOURCE DEFAULT MAX_CONFIGS HARNESS ENTRY STRATEGY SEED ARCH)
  set(list_keywords PARAMS WHERE FLAGS INCLUDE_DIRS KEYS DB_DIRS BUDGET)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "${keywords}" "${list_keywords}")
  string(CONCAT all_keywords "SOURCE, PARAMS, WHERE, DEFAULT, FLAGS, ARCH, INCLUDE_DIRS, MAX_CONFIGS, ENTRY, KEYS, "
                              "HARNESS, DB_DIRS, STRATEGY, BUDGET and SEED")
  if(arg_UNPARSED_ARGUMENTS)
    list(GET arg_UNPARSED_ARGUMENTS 0 bad)
    message(FATAL_ERROR "${where}: unknown argument '${bad}'; ktune_add_kernel takes ${all_keywords}")
  endif()
  foreach(kw IN LISTS arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${where}: ${kw} is given without a value; give one or drop ${kw}")
  endforeach()
  math(EXPR raw_count "${ARGC} - 1")
  if(raw_count GREATER 0)
    foreach(i RANGE 1 ${raw_count})
      set(raw_${i} "${ARGV${i}}")
    endforeach()
    _ktune_check_raw_arguments("${where}" "${keywords}" "${list_keywords}" "${all_keywords}")
  endif()
  _ktune_claim_name("${name}" "${where}")
  _ktune_kernel_files("${name}" "${where}")  # source, harness
  _ktune_search_args("${where}")             # search_args
  _ktune_check_settings("${where}")          # max_configs

  _ktune_find_nvcc()
  _ktune_resolve_arch()
  _ktune_host_tool()
  _ktune_kernel_archs("${where}")  # arch, archs, ptx_arch
  get_property(tool GLOBAL PROPERTY KTUNE_TOOL)
  set(out_dir "${CMAKE_BINARY_DIR}/_ktune/${name}")
  _ktune_plan("${name}" "${where}" "${tool}" "${out_dir}" "${source}" "${max_configs}" "${search_args}")
  _ktune_add_compile_steps("${name}" "${tool}" "${out_dir}" "${source}")

  _ktune_directories("${where}" DB_DIRS "${arg_DB_DIRS}"
                     "; name a directory of tuning DBs (<GPU model>.json), e.g. one `ktune merge` wrote" db_dirs)
  list(PREPEND db_dirs "${KTUNE_DB_DIR}/${name}")
  set(tune_output "")
  if(DEFINED arg_HARNESS)
    list(APPEND search_args --max-configs "${max_configs}")
    # Other GPUs' results in DB_DIRS start the search on this one (besides the build's own
    # DB directory's other files).
    foreach(dir IN LISTS db_dirs)
      if(NOT dir STREQUAL "${KTUNE_DB_DIR}/${name}")
        list(APPEND search_args "--prior-db-dir=${dir}")
      endif()
    endforeach()
    _ktune_add_tune_step(${name} "${harness}" "${out_dir}" "${arg_KEYS}" "${search_args}")
    if(NOT KTUNE_TUNE STREQUAL "OFF")
      set(tune_output "${out_dir}/tune.json")
    endif()
  endif()
  _ktune_add_bake_step(${name} "${out_dir}" "${tune_output}" "${db_dirs}" "--jobs;${KTUNE_COMPILE_JOBS}")
endfunction()

# ktune::runtime, compiled with the project's own compiler and flags: it goes into the
# user's binary. Inside the ktune project it is the project's own target.
function(_ktune_runtime_library)
  if(TARGET ktune::runtime)
    return()
  endif()
  if(TARGET ktune_runtime)
    add_library(ktune::runtime ALIAS ktune_runtime)
    return()
  endif()
  include("${KTUNE_ROOT}/tuner/runtime_sources.cmake")
  list(TRANSFORM KTUNE_RUNTIME_SOURCES PREPEND "${KTUNE_ROOT}/tuner/")
  get_filename_component(nvcc_dir "${KTUNE_NVCC}" DIRECTORY)
  add_library(ktune_runtime STATIC ${KTUNE_RUNTIME_SOURCES})
  target_include_directories(ktune_runtime PUBLIC "${KTUNE_ROOT}/tuner/include" "${nvcc_dir}/../include"
                                           PRIVATE "${KTUNE_ROOT}/tuner/src")
  target_compile_features(ktune_runtime PUBLIC cxx_std_20)
  target_link_libraries(ktune_runtime PUBLIC ${CMAKE_DL_LIBS})
  add_library(ktune::runtime ALIAS ktune_runtime)
endfunction()

# The bake step and the library users link: ktune::<name>.
function(_ktune_add_bake_step name out_dir tune_output db_dirs on_demand_args)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT CXX IN_LIST languages)
    message(STATUS "ktune: ${name}: no library ktune::${name}: the project does not enable CXX")
    return()
  endif()
  _ktune_runtime_library()
  get_property(tool GLOBAL PROPERTY KTUNE_TOOL)
  set(bake_dir "${out_dir}/baked")
  set(args --manifest "${out_dir}/manifest.json" --out-dir "${bake_dir}" --ptx "${out_dir}/default.ptx"
           ${on_demand_args})
  set(db_files "")
  foreach(dir IN LISTS db_dirs)
    list(APPEND args "--db-dir=${dir}")
    file(GLOB files CONFIGURE_DEPENDS "${dir}/*.json")
    list(APPEND db_files ${files})
  endforeach()
  # The list of DB files as an input too: a file removed from DB_DIRS changes it, so the
  # bake runs again without it. The glob reruns at build time and rewrites the configured
  # list; from it and after the tune step, the bake's list is written, only when it
  # changes (a byproduct: Ninja restats it). The DB the tune step just wrote enters that
  # list in the same build as its bake; the configured list alone would take it in at the
  # next configure and bake the same tables a second time.
  list(JOIN db_files "\n" db_text)
  file(CONFIGURE OUTPUT "${out_dir}/bake_db_files.configured.txt" CONTENT "${db_text}\n" @ONLY)
  set(db_list "${out_dir}/bake_db_files.txt")
  set(db_script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/ktuneDbFiles.cmake")
  add_custom_command(
    OUTPUT "${out_dir}/bake_db_files.stamp"
    BYPRODUCTS "${db_list}"
    COMMAND "${CMAKE_COMMAND}" "-DDIRS=${db_dirs}" "-DOUT=${db_list}" -P "${db_script}"
    COMMAND "${CMAKE_COMMAND}" -E touch "${out_dir}/bake_db_files.stamp"
    DEPENDS "${out_dir}/bake_db_files.configured.txt" ${tune_output} "${db_script}"
    VERBATIM)
  add_custom_target(ktune_${name}_db_files DEPENDS "${out_dir}/bake_db_files.stamp")
  add_custom_command(
    OUTPUT "${bake_dir}/ktune_${name}_baked.cpp" "${bake_dir}/include/ktune_${name}.hpp" "${bake_dir}/bake.json"
    COMMAND "${tool}" bake ${args}
    DEPENDS "${out_dir}/manifest.json" "${out_dir}/cubins.json" "${out_dir}/default.ptx" ${tune_output}
            ${db_files} "${db_list}" "${tool}"
    COMMENT "ktune: baking ${name}"
    VERBATIM)
  # The launch template checked on the host for the DEFAULT and every baked config, with
  # the harness's keys: its mistakes fail the build on every machine, GPU or not.
  set(launch_check "")
  if(TARGET ktune_${name}_tuner)
    set(launch_check "${bake_dir}/launch_check.txt")
    add_custom_command(
      OUTPUT "${launch_check}"
      COMMAND ktune_${name}_tuner --check-launch --manifest "${out_dir}/manifest.json" --bake "${bake_dir}/bake.json"
              --ptx "${out_dir}/default.ptx" --out "${launch_check}"
      DEPENDS ktune_${name}_tuner "${bake_dir}/bake.json" "${out_dir}/default.ptx" "${out_dir}/manifest.json"
      COMMENT "ktune: checking ${name}'s launch template on the host"
      VERBATIM)
  endif()
  add_library(ktune_${name} STATIC "${bake_dir}/ktune_${name}_baked.cpp"
                                   "${bake_dir}/include/ktune_${name}.hpp" ${launch_check})
  target_include_directories(ktune_${name} PUBLIC "${bake_dir}/include")
  target_link_libraries(ktune_${name} PUBLIC ktune::runtime)
  target_compile_features(ktune_${name} PUBLIC cxx_std_20)
  add_library(ktune::${name} ALIAS ktune_${name})
  add_dependencies(ktune_${name} ktune_${name}_cubins)  # see _ktune_add_tune_step
  add_dependencies(ktune_${name} ktune_${name}_db_files)  # the list's rule, before the bake
  if(tune_output)
    add_dependencies(ktune_${name} ktune_${name}_tune)
  endif()
endfunction()

# The kernel's tuner program and the build step that runs it.
function(_ktune_add_tune_step name harness out_dir keys search_args)
  _ktune_tuner_libraries()
  add_executable(ktune_${name}_tuner "${harness}")
  target_link_libraries(ktune_${name}_tuner PRIVATE ktune::tuner_main)
  target_compile_features(ktune_${name}_tuner PRIVATE cxx_std_20)
  # The search options this step passes (STRATEGY, BUDGET, SEED, the most configs, DB_DIRS
  # as priors; not this machine's compile jobs), one word a line, also without a tune step:
  # for whoever runs the tuner by hand with the kernel's own search (scripts/gpu-kernel.sh).
  list(JOIN search_args "\n" search_text)
  file(CONFIGURE OUTPUT "${out_dir}/search_args.txt" CONTENT "${search_text}\n" @ONLY)
  if(KTUNE_TUNE STREQUAL "OFF")
    return()
  endif()
  _ktune_gpu_identity_step(gpu_file)
  # The build's tune steps, one kernel directory a line, rewritten as each kernel is added
  # (the last one leaves the whole list): the progress line's place and ETA in the build.
  set_property(GLOBAL APPEND PROPERTY KTUNE_TUNE_STEPS "${out_dir}")
  get_property(steps GLOBAL PROPERTY KTUNE_TUNE_STEPS)
  list(JOIN steps "\n" steps_text)
  set(steps_file "${CMAKE_BINARY_DIR}/_ktune/tune_steps.txt")
  file(CONFIGURE OUTPUT "${steps_file}" CONTENT "${steps_text}\n" @ONLY)
  # The keys reach the tuner by one route: the manifest's KEYS.
  set(args --manifest "${out_dir}/manifest.json" --db-dir "${KTUNE_DB_DIR}/${name}"
           --worker-log "${out_dir}/worker.log" "--build-tunes=${steps_file}"
           --compile-jobs "${KTUNE_COMPILE_JOBS}")
  list(APPEND args ${search_args})
  if(KTUNE_TUNE STREQUAL "ON")
    list(APPEND args --require-gpu)
  endif()
  if(NOT KTUNE_GPUS STREQUAL "")
    list(APPEND args "--gpus=${KTUNE_GPUS}")
  endif()
  add_custom_command(
    OUTPUT "${out_dir}/tune.json"
    COMMAND ktune_${name}_tuner ${args} --summary-out "${out_dir}/tune.json"
    DEPENDS "${out_dir}/cubins.json" "${out_dir}/manifest.json" ktune_${name}_tuner "${gpu_file}"
    COMMENT "ktune: tuning ${name}"
    USES_TERMINAL
    VERBATIM)
  add_custom_target(ktune_${name}_tune ALL DEPENDS "${out_dir}/tune.json")
  # Makefile generators attach the cubin commands to every target that needs cubins.json;
  # ordering the targets keeps two of them from compiling the same cubin at once.
  add_dependencies(ktune_${name}_tune ktune_gpu_identity ktune_${name}_cubins)
  add_custom_target(ktune_${name}_retune
    COMMAND ktune_${name}_tuner ${args} --retune --summary-out "${out_dir}/tune.json"
    DEPENDS ktune_${name}_cubins
    COMMENT "ktune: tuning ${name} again (measurements of this GPU and kernel replaced)"
    USES_TERMINAL
    VERBATIM)
endfunction()

# One config's cubin: called once per line of the generated configs.cmake, inside
# ktune_add_kernel's scope, with the command `ktune plan` made for it. A macro, not a
# function: thousands of calls at configure time.
macro(_ktune_cubin id values command)
  set(_ktune_record "${_ktune_kernel_dir}/records/${id}.json")
  add_custom_command(
    OUTPUT "${_ktune_record}"
    BYPRODUCTS "${_ktune_kernel_dir}/cubins/${id}.cubin" "${_ktune_kernel_dir}/logs/${id}.log"
    COMMAND ${command}
    DEPENDS "${_ktune_source}"
    DEPFILE "${_ktune_kernel_dir}/deps/${id}.d"
    JOB_POOL ktune_nvcc
    COMMENT "ktune: ${name} ${values}"
    VERBATIM)
  list(APPEND _ktune_records "${_ktune_record}")
endmacro()
