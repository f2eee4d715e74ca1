// gpu test: every cubin a kernel's build produced loads on the visible GPU through the
// driver API and exposes the kernel's entry point. Proves the cubins' architecture fits
// the GPU. Exits 77 (CTest: skipped) with a message when no driver or GPU is present.
// usage: load_cubins <manifest.json> <entry name> | load_cubins --probe
#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>
#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ktune/compile_record.hpp"
#include "ktune/manifest.hpp"

namespace {

constexpr int kSkip = 77;

// The driver is opened at run time so this test builds and skips on machines without one.
struct Driver {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  template <typename F>
  F get(const char* name) const { return reinterpret_cast<F>(dlsym(lib, name)); }
};

}  // namespace

int main(int argc, char** argv) {
  const bool probe = argc == 2 && std::string_view(argv[1]) == "--probe";
  if (argc != 3 && !probe) {
    std::fprintf(stderr, "usage: %s <manifest.json> <entry name> | --probe\n", argv[0]);
    return 2;
  }
  Driver d;
  if (!d.lib) {
    std::printf("SKIPPED: no CUDA driver (libcuda.so.1) on this machine\n");
    return kSkip;
  }
  auto cuInit = d.get<CUresult (*)(unsigned)>("cuInit");
  auto cuDeviceGetCount = d.get<CUresult (*)(int*)>("cuDeviceGetCount");
  auto cuDeviceGet = d.get<CUresult (*)(CUdevice*, int)>("cuDeviceGet");
  auto cuDeviceGetName = d.get<CUresult (*)(char*, int, CUdevice)>("cuDeviceGetName");
  auto cuDevicePrimaryCtxRetain = d.get<CUresult (*)(CUcontext*, CUdevice)>("cuDevicePrimaryCtxRetain");
  auto cuCtxSetCurrent = d.get<CUresult (*)(CUcontext)>("cuCtxSetCurrent");
  auto cuModuleLoad = d.get<CUresult (*)(CUmodule*, const char*)>("cuModuleLoad");
  auto cuModuleGetFunction = d.get<CUresult (*)(CUfunction*, CUmodule, const char*)>("cuModuleGetFunction");
  auto cuFuncGetAttribute = d.get<CUresult (*)(int*, CUfunction_attribute, CUfunction)>("cuFuncGetAttribute");
  auto cuModuleUnload = d.get<CUresult (*)(CUmodule)>("cuModuleUnload");
  int count = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    std::printf("SKIPPED: the CUDA driver sees no GPU\n");
    return kSkip;
  }
  CUdevice dev;
  CUcontext ctx;
  char name[256] = {};
  cuDeviceGet(&dev, 0);
  cuDeviceGetName(name, sizeof name, dev);
  if (probe) {
    std::printf("GPU: %s\n", name);
    return 0;
  }
  if (cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
    std::printf("FAIL: cannot create a context on %s\n", name);
    return 1;
  }

  const std::filesystem::path manifest_path = argv[1];
  const auto m = ktune::Manifest::from_json(ktune::read_json_file(manifest_path), argv[1]);
  const auto dir = manifest_path.parent_path();
  int loaded = 0, failed_compile = 0, bad = 0;
  for (const auto& c : m.configs) {
    auto record = ktune::CompileRecord::from_json(ktune::read_json_file(dir / c.record()), c.record());
    if (record.status != "ok") {
      ++failed_compile;
      continue;
    }
    CUmodule module;
    CUfunction fn;
    int regs = 0;
    CUresult r = cuModuleLoad(&module, (dir / c.cubin()).c_str());
    if (r == CUDA_SUCCESS) r = cuModuleGetFunction(&fn, module, argv[2]);
    if (r == CUDA_SUCCESS) r = cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
    if (r != CUDA_SUCCESS || regs <= 0) {
      std::printf("FAIL: config %s: cubin %s did not load (CUresult %d)\n", c.id.c_str(),
                  c.cubin().c_str(), static_cast<int>(r));
      ++bad;
      continue;
    }
    cuModuleUnload(module);
    ++loaded;
  }
  std::printf("%s (sm_%s cubins) on %s: %d loaded, %d compile-failed, %d did not load\n",
              m.kernel.c_str(), m.compile.arch.c_str(), name, loaded, failed_compile, bad);
  return (bad == 0 && loaded > 0) ? 0 : 1;
}
