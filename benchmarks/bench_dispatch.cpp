// Host cost of launching through the baked dispatcher, against raw driver launches of the
// same cubin with the same grid and arguments, in one run on the visible GPU:
//   - first call: choosing the config and loading its module, vs cuModuleLoadData alone;
//   - cached calls: host time per launch, enqueued in batches of 256 (the GPU queue never
//     fills; the batches are synchronised outside the timed part), median over batches,
//     batches of the three kinds interleaved so that drift hits all of them alike.
// Goal: dispatcher <= 1.05x raw cuLaunchKernel for cached lookups.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <ktune/driver.hpp>
#include <ktune_sgemm.hpp>

#include "sgemm_launch.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kBatch = 256;
constexpr int kBatches = 60;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  std::string why;
  const ktune::Driver* d = ktune::Driver::get_with_gpu(&why);
  if (!d) {
    std::printf("bench_dispatch: skipped: %s\n", why.c_str());
    return 0;
  }
  CUdevice dev;
  CUcontext ctx;
  d->check(d->cuDeviceGet(&dev, 0), "device");
  d->check(d->cuDevicePrimaryCtxRetain(&ctx, dev), "context");
  d->check(d->cuCtxSetCurrent(ctx), "context");
  CUstream stream;
  d->check(d->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "stream");

  const int M = 128, N = 128, K = 128;  // tiny: the GPU keeps up with the host
  CUdeviceptr A, B, C;
  d->check(d->cuMemAlloc(&A, sizeof(float) * M * K), "alloc");
  d->check(d->cuMemAlloc(&B, sizeof(float) * K * N), "alloc");
  d->check(d->cuMemAlloc(&C, sizeof(float) * M * N), "alloc");
  const ktune_sgemm::Key key{.M = M, .N = N, .K = K};

  // First call: choose + load + launch.
  auto t0 = Clock::now();
  ktune_sgemm::launch(key, sgemm_launch(A, B, C, M, N, K), stream);
  const double first_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  d->check(d->cuStreamSynchronize(stream), "first launch");
  const ktune::Choice choice = ktune_sgemm::choice(key);
  const ktune::BakedConfig& bc = ktune_sgemm::baked.configs[choice.config];
  const ktune::BakedCubin* cubin = nullptr;
  for (const ktune::BakedCubin& c : bc.cubins)
    if (c.arch.major == choice.arch.major && c.arch.minor == choice.arch.minor &&
        c.arch.arch_specific == choice.arch.arch_specific)
      cubin = &c;
  if (choice.image != ktune::ImageKind::Cubin || !cubin) {
    std::printf("bench_dispatch: skipped: the dispatcher chose %s, not a cubin\n", choice.describe().c_str());
    return 0;
  }

  // The same cubin, loaded and launched by hand.
  CUmodule module;
  t0 = Clock::now();
  d->check(d->cuModuleLoadData(&module, cubin->image.data), "load");
  const double load_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  CUfunction fn;
  d->check(d->cuModuleGetFunction(&fn, module, ktune_sgemm::baked.entry), "function");
  const ktune::Config& config = ktune_sgemm::dispatcher().config(key.values());
  ktune::Launch l = sgemm_launch(A, B, C, M, N, K)(config);
  void** args = l.args.pointers();
  CUlaunchConfig cfg{};
  cfg.gridDimX = l.grid.x, cfg.gridDimY = l.grid.y, cfg.gridDimZ = l.grid.z;
  cfg.blockDimX = l.block.x, cfg.blockDimY = l.block.y, cfg.blockDimZ = l.block.z;
  cfg.sharedMemBytes = l.shared_bytes;
  cfg.hStream = stream;

  std::vector<double> dispatch_ns, raw_ns, raw_ex_ns;
  auto batch = [&](auto&& launch_one, std::vector<double>& out) {
    d->check(d->cuStreamSynchronize(stream), "sync");
    auto start = Clock::now();
    for (int i = 0; i < kBatch; ++i) launch_one();
    out.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() / kBatch);
  };
  for (int b = 0; b < kBatches + 5; ++b) {
    batch([&] { ktune_sgemm::launch(key, sgemm_launch(A, B, C, M, N, K), stream); }, dispatch_ns);
    batch(
        [&] {
          d->cuLaunchKernel(fn, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z, l.shared_bytes, stream,
                            args, nullptr);
        },
        raw_ns);
    batch([&] { d->cuLaunchKernelEx(&cfg, fn, args, nullptr); }, raw_ex_ns);
  }
  d->check(d->cuStreamSynchronize(stream), "sync");
  for (auto* v : {&dispatch_ns, &raw_ns, &raw_ex_ns}) v->erase(v->begin(), v->begin() + 5);  // warm-up

  const double disp = median(dispatch_ns), raw = median(raw_ns), raw_ex = median(raw_ex_ns);
  std::printf("bench_dispatch: sgemm M=N=K=%d on the GPU, config %s chosen by %s\n", M, bc.id,
              choice.describe().c_str());
  std::printf("  first call (choose + load module + launch): %8.1f us   (cuModuleLoadData alone: %.1f us)\n", first_us,
              load_us);
  std::printf("  cached launch, host time per launch (median of %d batches of %d):\n", kBatches, kBatch);
  std::printf("    ktune_sgemm::launch (template + lookup + cuLaunchKernelEx): %7.0f ns\n", disp);
  std::printf("    raw cuLaunchKernel:                                       %7.0f ns\n", raw);
  std::printf("    raw cuLaunchKernelEx:                                     %7.0f ns\n", raw_ex);
  std::printf("  dispatcher / raw cuLaunchKernel = %.3fx (goal <= 1.05x); / raw cuLaunchKernelEx = %.3fx\n", disp / raw,
              disp / raw_ex);
  return 0;
}
