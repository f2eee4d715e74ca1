# find_package(ktune CONFIG) from a source tree: -Dktune_DIR=<ktune>/cmake.
include("${CMAKE_CURRENT_LIST_DIR}/ktune.cmake")
set(ktune_FOUND TRUE)
