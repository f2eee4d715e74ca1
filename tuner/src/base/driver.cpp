#include "ktune/driver.hpp"

#include <dlfcn.h>

#include <mutex>
#include <type_traits>

namespace ktune {
namespace {

Driver* load(std::string& why) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    why = "no CUDA driver (libcuda.so.1 not found)";
    return nullptr;
  }
  using GetProc = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto get_proc = reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
  if (!get_proc) {
    why = "the CUDA driver is older than CUDA 12 (no cuGetProcAddress_v2)";
    return nullptr;
  }
  static Driver d;
  bool ok = true;
  // Each entry point at the ABI version its declaration in cuda.h has.
#define KTUNE_DRIVER_LOAD(name, version)                                                           \
  static_assert(std::is_same_v<decltype(&::name), PFN_##name##_v##version>,                        \
                #name ": the pinned version is not the ABI cuda.h declares");                      \
  {                                                                                                \
    void* p = nullptr;                                                                             \
    CUdriverProcAddressQueryResult found{};                                                        \
    if (get_proc(#name, &p, version, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS || !p) { \
      why = std::string("the CUDA driver lacks ") + #name;                                         \
      ok = false;                                                                                  \
    } else {                                                                                       \
      d.name = reinterpret_cast<decltype(d.name)>(p);                                              \
    }                                                                                              \
  }
  KTUNE_DRIVER_FUNCTIONS(KTUNE_DRIVER_LOAD)
#undef KTUNE_DRIVER_LOAD
  if (!ok) return nullptr;
  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS) {
    why = "the CUDA driver did not initialise: " + d.describe(r);
    return nullptr;
  }
  return &d;
}

}  // namespace

const Driver* Driver::get(std::string* why) {
  static std::once_flag once;
  static Driver* driver = nullptr;
  static std::string reason;
  std::call_once(once, [] { driver = load(reason); });
  if (!driver && why) *why = reason;
  return driver;
}

const Driver* Driver::get_with_gpu(std::string* why) {
  const Driver* d = get(why);
  int count = 0;
  if (d && (d->cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0)) {
    if (why) *why = "the CUDA driver sees no GPU";
    return nullptr;
  }
  return d;
}

std::string Driver::describe(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName) cuGetErrorName(r, &name);
  if (cuGetErrorString) cuGetErrorString(r, &text);
  std::string out = name ? name : "CUDA error " + std::to_string(static_cast<int>(r));
  if (text) out += std::string(" (") + text + ")";
  return out;
}

void Driver::check(CUresult r, const std::string& what) const {
  if (r != CUDA_SUCCESS) throw CudaError(what + ": " + describe(r), r);
}

bool is_sticky(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
      return true;
    default:
      return false;
  }
}

GpuInfo query_gpu_info(const Driver& d, CUdevice device) {
  GpuInfo g;
  char name[256] = {};
  d.check(d.cuDeviceGetName(name, sizeof name, device), "reading the GPU's name");
  g.name = name;
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    d.check(d.cuDeviceGetAttribute(&v, a, device), "reading a GPU attribute");
    return v;
  };
  g.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  g.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  g.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  std::size_t memory = 0;
  d.check(d.cuDeviceTotalMem(&memory, device), "reading the GPU's memory size");
  g.memory_bytes = memory;
  return g;
}

}  // namespace ktune
