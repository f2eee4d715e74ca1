#include "ktune/launch_resources.hpp"

#include <cstring>
#include <string>

#include "ktune/driver.hpp"
#include "ktune/error.hpp"

namespace ktune {
namespace {

// The driver, when it is there and a context is current; null otherwise: the host check of
// launch templates (no driver, or a driver and no context on a GPU machine).
const Driver* driver_with_context() {
  const Driver* d = Driver::get();
  CUcontext ctx = nullptr;
  return d && d->cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx ? d : nullptr;
}

}  // namespace

int current_sm_count() {
  const Driver* d = driver_with_context();
  CUdevice dev = 0;
  int sms = 0;
  if (!d || d->cuCtxGetDevice(&dev) != CUDA_SUCCESS ||
      d->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) != CUDA_SUCCESS)
    return 0;
  return sms;
}

namespace {

uint32_t element_bytes(CUtensorMapDataType type) {
  switch (type) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8:
      return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
      return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32:
    case CU_TENSOR_MAP_DATA_TYPE_INT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ:
      return 4;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64:
    case CU_TENSOR_MAP_DATA_TYPE_INT64:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
      return 8;
    default:
      return 0;
  }
}

uint32_t swizzle_span(CUtensorMapSwizzle swizzle) {
  switch (swizzle) {
    case CU_TENSOR_MAP_SWIZZLE_32B:
      return 32;
    case CU_TENSOR_MAP_SWIZZLE_64B:
      return 64;
    case CU_TENSOR_MAP_SWIZZLE_128B:
      return 128;
    default:
      return 0;  // none
  }
}

}  // namespace

CUtensorMap tensor_map_2d(CUdeviceptr base, CUtensorMapDataType type, uint64_t rows, uint64_t cols, uint64_t row_bytes,
                          uint32_t box_rows, uint32_t box_cols, CUtensorMapSwizzle swizzle) {
  const std::string what = "tensor_map_2d(" + std::to_string(rows) + " x " + std::to_string(cols) + ", box " +
                           std::to_string(box_rows) + " x " + std::to_string(box_cols) + ")";
  const uint32_t elem = element_bytes(type);
  if (!elem) throw Error(what + ": element type " + std::to_string(type) + " is not one a 2-D tile copy takes");
  // The limits of cuTensorMapEncodeTiled (CUDA driver API reference), checked here so that
  // a GPU-less build reports them too.
  if (base % 16) throw Error(what + ": the base address must be 16-byte aligned");
  if (rows == 0 || cols == 0) throw Error(what + ": an empty array has no descriptor");
  if (row_bytes % 16 || row_bytes < cols * elem)
    throw Error(what + ": rows are " + std::to_string(row_bytes) +
                " bytes apart; that must be a multiple of 16 and hold a row of " + std::to_string(cols * elem) +
                " bytes");
  if (box_rows == 0 || box_cols == 0 || box_rows > 256 || box_cols > 256)
    throw Error(what + ": each box size must be 1..256");
  if (box_cols * elem % 16) throw Error(what + ": a box row must be a multiple of 16 bytes");
  if (const uint32_t span = swizzle_span(swizzle); span && box_cols * elem > span)
    throw Error(what + ": a box row of " + std::to_string(box_cols * elem) + " bytes is wider than the " +
                std::to_string(span) + "-byte swizzle");
  CUtensorMap map;
  std::memset(&map, 0, sizeof map);
  // The host check: no GPU will read it, and the encoder refuses to work without a context.
  const Driver* d = driver_with_context();
  if (!d) return map;
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {row_bytes};
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  d->check(d->cuTensorMapEncodeTiled(&map, type, 2, reinterpret_cast<void*>(base), dims, strides, box, element_strides,
                                     CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           what);
  return map;
}

}  // namespace ktune
