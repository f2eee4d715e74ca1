# The ktune runtime: what a user's binary links to launch baked kernels (driver loading,
# the fallback chain, dispatch, online tuning). One list for the ktune project's own build
# and for user projects, which compile it with their own compiler (cmake/ktune.cmake).
set(KTUNE_RUNTIME_SOURCES
  src/base/driver.cpp
  src/dispatch/choose.cpp
  src/dispatch/dispatcher.cpp
  src/dispatch/launch_resources.cpp
  src/dispatch/online.cpp
  src/dispatch/online_cache.cpp
)
