#pragma once
// What the runtime knows of a GPU to choose a baked config for it: its model, architecture
// and size, as the driver reports them (query_gpu_info in driver.hpp). The tuner's
// GpuIdentity (gpu_identity.hpp) is this plus what a measurement's fingerprint adds.
#include <cstdint>
#include <string>

namespace ktune {

struct GpuInfo {
  std::string name;  // "NVIDIA H200", as cuDeviceGetName says
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  uint64_t memory_bytes = 0;  // 0: not known
};

}  // namespace ktune
