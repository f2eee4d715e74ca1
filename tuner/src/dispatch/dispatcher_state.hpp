#pragma once
// The dispatcher's shared state, for dispatcher.cpp and online.cpp: per context, the GPU,
// the resolution of each key and the functions loaded.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "dispatch/online_cache.hpp"
#include "ktune/dispatcher.hpp"
#include "ktune/driver.hpp"

namespace ktune {

struct Dispatcher::Context {
  CUcontext handle = nullptr;
  CUdevice device = 0;
  GpuInfo gpu;
  std::map<std::vector<int64_t>, std::unique_ptr<Resolved>> keys;
  std::map<std::pair<int32_t, ImageKind>, CUfunction> functions;
};

struct Dispatcher::State {
  std::mutex mutex;
  std::map<unsigned long long, std::unique_ptr<Context>> contexts;
  std::unique_ptr<OnlineCache> online;
};

namespace dispatch_detail {

const Driver& driver_or_throw(const char* kernel);
std::string describe_config(const BakedKernel& k, int32_t index);

}  // namespace dispatch_detail
}  // namespace ktune
