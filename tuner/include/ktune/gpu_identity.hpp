#pragma once
// Which GPU measured: its model, architecture, size and driver, as the driver reports them
// and as DBs record them. The fingerprint's GPU half (fingerprint.hpp): the runtime's
// GpuInfo (gpu_info.hpp, from the same query) plus the driver version and L2 size.
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace ktune {

struct GpuIdentity {
  std::string name;  // "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int driver_version = 0;     // cuDriverGetVersion, e.g. 13000
  uint64_t l2_bytes = 0;      // not part of the fingerprint: used to size the L2 flush
  uint64_t memory_bytes = 0;  // not part of the fingerprint; 0: not known. Run-time choice
                              // prefers, among models of one architecture, the most alike

  nlohmann::json to_json() const;
  static GpuIdentity from_json(const nlohmann::json& j);
  // "NVIDIA_H200": a file-name-safe form of the model name, for one DB file per GPU model.
  std::string model_slug() const;
};

struct Driver;
// What the fingerprint needs to know of GPU `device` (a CUdevice; no context needed).
GpuIdentity query_gpu(const Driver& d, int device);

}  // namespace ktune
