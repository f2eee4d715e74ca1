#pragma once
// A Launch as cuLaunchKernelEx takes it, for the tuner's worker and the dispatcher alike:
// num_ctas > 1 adds the cluster attribute (a thread block cluster of that many blocks
// along x). The config points at the attribute inside this object, so it is not copied.
#include <cuda.h>

#include <cstdint>

#include "ktune/launch.hpp"

namespace ktune {

class LaunchConfig {
 public:
  LaunchConfig(const Launch& l, int64_t num_ctas, CUstream stream) {
    cfg_.gridDimX = l.grid.x, cfg_.gridDimY = l.grid.y, cfg_.gridDimZ = l.grid.z;
    cfg_.blockDimX = l.block.x, cfg_.blockDimY = l.block.y, cfg_.blockDimZ = l.block.z;
    cfg_.sharedMemBytes = l.shared_bytes;
    cfg_.hStream = stream;
    if (num_ctas > 1) {
      cluster_.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      cluster_.value.clusterDim.x = static_cast<unsigned>(num_ctas);
      cluster_.value.clusterDim.y = 1;
      cluster_.value.clusterDim.z = 1;
      cfg_.attrs = &cluster_;
      cfg_.numAttrs = 1;
    }
  }
  LaunchConfig(const LaunchConfig&) = delete;
  LaunchConfig& operator=(const LaunchConfig&) = delete;

  const CUlaunchConfig* get() const { return &cfg_; }

 private:
  CUlaunchConfig cfg_{};
  CUlaunchAttribute cluster_{};
};

}  // namespace ktune
