// gpu test: every cubin a kernel's build produced loads on the visible GPU through the
// driver API and exposes the kernel's entry point. Proves the cubins' architecture fits
// the GPU. Configs the build did not compile (no compile record: a space compiled on
// demand, or a build without its tune step) are counted, not loaded; none loaded fails.
// Exits 77 (CTest: skipped) with a message when no driver or GPU is present.
// usage: load_cubins <manifest.json> <entry name> | load_cubins --probe
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ktune/compile_record.hpp"
#include "ktune/driver.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/manifest.hpp"

namespace {

constexpr int kSkip = 77;

}  // namespace

int main(int argc, char** argv) try {
  const bool probe = argc == 2 && std::string_view(argv[1]) == "--probe";
  if (argc != 3 && !probe) {
    std::fprintf(stderr, "usage: %s <manifest.json> <entry name> | --probe\n", argv[0]);
    return 2;
  }
  std::string why;
  const ktune::Driver* d = ktune::Driver::get_with_gpu(&why);
  if (!d) {
    std::printf("SKIPPED: %s\n", why.c_str());
    return kSkip;
  }
  CUdevice dev;
  CUcontext ctx;
  d->cuDeviceGet(&dev, 0);
  const std::string name = ktune::query_gpu(*d, dev).name;
  if (probe) {
    std::printf("GPU: %s\n", name.c_str());
    return 0;
  }
  if (d->cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || d->cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
    std::printf("FAIL: cannot create a context on %s\n", name.c_str());
    return 1;
  }

  const std::filesystem::path manifest_path = argv[1];
  const auto m = ktune::Manifest::from_json(ktune::read_json_file(manifest_path), argv[1]);
  const auto dir = manifest_path.parent_path();
  int loaded = 0, failed_compile = 0, not_built = 0, bad = 0;
  for (const auto& c : m.configs) {
    if (!std::filesystem::exists(dir / c.record())) {
      ++not_built;
      continue;
    }
    auto record = ktune::CompileRecord::from_json(ktune::read_json_file(dir / c.record()), c.record());
    if (record.status != "ok") {
      ++failed_compile;
      continue;
    }
    CUmodule module;
    CUfunction fn;
    int regs = 0;
    std::ifstream file(dir / c.cubin(), std::ios::binary);
    const std::string image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    CUresult r = d->cuModuleLoadData(&module, image.data());
    if (r == CUDA_SUCCESS) r = d->cuModuleGetFunction(&fn, module, argv[2]);
    if (r == CUDA_SUCCESS) r = d->cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
    if (r != CUDA_SUCCESS || regs <= 0) {
      std::printf("FAIL: config %s: cubin %s did not load (CUresult %d)\n", c.id.c_str(), c.cubin().c_str(),
                  static_cast<int>(r));
      ++bad;
      continue;
    }
    d->cuModuleUnload(module);
    ++loaded;
  }
  std::printf("%s (sm_%s cubins) on %s: %d loaded, %d compile-failed, %d not built, %d did not load\n",
              m.kernel.c_str(), m.compile.arch.c_str(), name.c_str(), loaded, failed_compile, not_built, bad);
  return (bad == 0 && loaded > 0) ? 0 : 1;
} catch (const std::exception& e) {
  std::printf("FAIL: %s\n", e.what());
  return 1;
}
