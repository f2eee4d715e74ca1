#pragma once
// The CUDA driver API, opened at run time (dlopen of libcuda.so.1, entry points through
// cuGetProcAddress at this toolkit's version). Programs that use it build and start on
// machines without a GPU driver and can say so, instead of failing to load.
#include <cuda.h>

#include <string>

#include "ktune/error.hpp"
#include "ktune/fingerprint.hpp"

namespace ktune {

#define KTUNE_DRIVER_FUNCTIONS(X)                                                          \
  X(cuInit) X(cuDriverGetVersion) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetName)    \
  X(cuDeviceGetAttribute) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)         \
  X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuGetErrorName) X(cuGetErrorString)             \
  X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncGetAttribute)       \
  X(cuFuncSetAttribute) X(cuLaunchKernelEx) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD)     \
  X(cuMemcpyDtoH) X(cuMemcpyDtoDAsync) X(cuMemsetD32Async) X(cuStreamCreate)               \
  X(cuStreamDestroy) X(cuStreamSynchronize) X(cuEventCreate) X(cuEventDestroy)             \
  X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime)                             \
  X(cuOccupancyMaxActiveClusters) X(cuMemAllocHost) X(cuMemFreeHost)

// A failed driver call: names the call, the CUDA error and what ktune was doing.
class CudaError : public Error {
 public:
  CudaError(const std::string& message, CUresult code) : Error(message), code_(code) {}
  CUresult code() const { return code_; }

 private:
  CUresult code_;
};

struct Driver {
#define KTUNE_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  KTUNE_DRIVER_FUNCTIONS(KTUNE_DRIVER_MEMBER)
#undef KTUNE_DRIVER_MEMBER

  // The process-wide driver, or nullptr with `why` set when there is none.
  static const Driver* get(std::string* why = nullptr);
  // The same, but also nullptr (and `why`) when the driver sees no GPU.
  static const Driver* get_with_gpu(std::string* why = nullptr);

  // "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)".
  std::string describe(CUresult r) const;
  // Throws CudaError "<what>: <describe(r)>" unless r is CUDA_SUCCESS.
  void check(CUresult r, const std::string& what) const;
};

// What the fingerprint needs to know of a GPU (no context needed).
GpuIdentity query_gpu(const Driver& d, CUdevice device);

// Errors after which the context is unusable: the process must end (a worker restarts).
bool is_sticky(CUresult r);

}  // namespace ktune
