# Run at build time by each kernel's bake (cmake -P, cmake/ktune.cmake): writes the sorted
# list of DB files (*.json) in the directories DIRS to OUT, and only when the list changed,
# so that the bake runs again when a DB file appears in or leaves a DB directory, and not
# when nothing did (the list's file keeps its time; Ninja restats it).
# usage: cmake "-DDIRS=<dir>;<dir>..." -DOUT=<file> -P ktuneDbFiles.cmake
if(NOT DEFINED OUT)
  message(FATAL_ERROR "ktuneDbFiles.cmake: OUT (the list's file) must be set")
endif()
set(files "")
foreach(dir IN LISTS DIRS)
  file(GLOB found "${dir}/*.json")
  list(APPEND files ${found})
endforeach()
list(SORT files)
list(JOIN files "\n" text)
set(text "${text}\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
