#pragma once
// The CUDA driver API, opened at run time (dlopen of libcuda.so.1, entry points through
// cuGetProcAddress at this toolkit's version). Programs that use it build and start on
// machines without a GPU driver and can say so, instead of failing to load.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>

#include "ktune/error.hpp"
#include "ktune/gpu_info.hpp"

namespace ktune {

// Each entry point with the ABI version that cuda.h's declaration of it has: asking the
// driver for a name at the toolkit's version can return a newer ABI of that name (CUDA 13's
// cuCtxSynchronize takes a context), so every version is pinned and checked against
// cudaTypedefs.h at compile time.
// clang-format off
#define KTUNE_DRIVER_FUNCTIONS(X)                                                            \
  X(cuInit, 2000) X(cuDriverGetVersion, 2020) X(cuDeviceGet, 2000)                           \
  X(cuDeviceGetCount, 2000) X(cuDeviceGetName, 2000) X(cuDeviceGetAttribute, 2000)           \
  X(cuDeviceTotalMem, 3020)                                                                  \
  X(cuDevicePrimaryCtxRetain, 7000) X(cuDevicePrimaryCtxRelease, 11000)                      \
  X(cuCtxSetCurrent, 4000) X(cuCtxSynchronize, 2000) X(cuGetErrorName, 6000)                 \
  X(cuGetErrorString, 6000) X(cuModuleLoadData, 2000) X(cuModuleUnload, 2000)                \
  X(cuModuleGetFunction, 2000) X(cuFuncGetAttribute, 2020) X(cuFuncSetAttribute, 9000)       \
  X(cuLaunchKernelEx, 11060) X(cuMemAlloc, 3020) X(cuMemFree, 3020) X(cuMemcpyHtoD, 3020)    \
  X(cuMemcpyDtoH, 3020) X(cuMemcpyDtoDAsync, 3020) X(cuMemsetD32Async, 3020)                 \
  X(cuStreamCreate, 2000) X(cuStreamDestroy, 4000) X(cuStreamSynchronize, 2000)              \
  X(cuEventCreate, 2000) X(cuEventDestroy, 4000) X(cuEventRecord, 2000)                      \
  X(cuEventSynchronize, 2000) X(cuEventElapsedTime, 12080)                                   \
  X(cuOccupancyMaxActiveClusters, 11070) X(cuMemAllocHost, 3020) X(cuMemFreeHost, 2000)      \
  X(cuCtxGetCurrent, 4000) X(cuCtxGetDevice, 2000) X(cuCtxGetId, 12000)                      \
  X(cuModuleLoadDataEx, 2010) X(cuLaunchKernel, 4000) X(cuModuleGetGlobal, 3020)               \
  X(cuTensorMapEncodeTiled, 12000)
// clang-format on

// A failed driver call: names the call, the CUDA error and what ktune was doing.
class CudaError : public Error {
 public:
  CudaError(const std::string& message, CUresult code) : Error(message), code_(code) {}
  CUresult code() const { return code_; }

 private:
  CUresult code_;
};

struct Driver {
#define KTUNE_DRIVER_MEMBER(name, version) decltype(&::name) name = nullptr;
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

// Errors after which the context is unusable: the process must end (a worker restarts).
bool is_sticky(CUresult r);

// GPU `device`'s model, architecture, SM count and memory: the one query, for the runtime's
// choice and the tuner's fingerprint (query_gpu). No context needed.
GpuInfo query_gpu_info(const Driver& d, CUdevice device);

}  // namespace ktune
