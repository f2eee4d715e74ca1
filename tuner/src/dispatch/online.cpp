// Online tuning (KTUNE_ONLINE=1): the first launch of a key that was not tuned for this GPU
// measures a small portfolio (the distinct configs the bake chose for any key, plus the
// fallback's own choice) on the caller's own arguments, keeps the fastest for the rest of
// the process and writes it to the online cache for the next one. It launches the kernel
// several times on the caller's buffers, so it suits kernels whose outputs do not depend on
// their previous contents.
#include <algorithm>
#include <set>
#include <vector>

#include "dispatch/dispatcher_state.hpp"
#include "ktune/dispatcher.hpp"

namespace ktune {

using namespace dispatch_detail;

namespace {

constexpr int kTimedLaunches = 5;

// Configs worth trying on this GPU: every config a table of its major version chose (the
// caller keeps those that run here), and the choice of the fallback chain.
std::vector<int32_t> portfolio(const BakedKernel& k, const GpuInfo& gpu, int32_t fallback) {
  std::set<int32_t> picked{fallback};
  for (const BakedGpu& g : k.gpus) {
    if (g.cc_major != gpu.cc_major) continue;
    for (const BakedEntry& e : g.entries) picked.insert(e.config);
    picked.insert(g.common_best);
  }
  std::vector<int32_t> out;
  for (int32_t i : picked)
    if (i >= 0 && static_cast<std::size_t>(i) < k.configs.size()) out.push_back(i);
  return out;
}

}  // namespace

void Dispatcher::launch_online(std::span<const int64_t> key, const LaunchTemplate& t, CUstream stream) {
  const Driver& d = driver_or_throw(kernel_.name);
  std::lock_guard lock(state_->mutex);
  CUcontext ctx = nullptr;
  d.check(d.cuCtxGetCurrent(&ctx), "reading the current context");
  unsigned long long ctx_id = 0;
  d.check(d.cuCtxGetId(ctx, &ctx_id), "reading the context's id");
  Context& context = *state_->contexts.at(ctx_id);
  Resolved& r = *context.keys.at(std::vector<int64_t>(key.begin(), key.end()));
  if (!r.online_pending.load(std::memory_order_acquire)) {  // another thread measured it
    Launch l = t(r.config);
    run(r, l, stream);
    return;
  }

  CUevent start = nullptr, stop = nullptr;
  d.check(d.cuEventCreate(&start, CU_EVENT_DEFAULT), "creating an event");
  d.check(d.cuEventCreate(&stop, CU_EVENT_DEFAULT), "creating an event");
  struct Events {
    const Driver& d;
    CUevent a, b;
    ~Events() {
      d.cuEventDestroy(a);
      d.cuEventDestroy(b);
    }
  } events{d, start, stop};

  int32_t best = r.choice.config;
  float best_ms = -1;
  for (int32_t index : portfolio(kernel_, context.gpu, r.choice.config)) {
    const auto image = runnable_image(kernel_, index, context.gpu, options_.choose);
    if (!image) continue;
    Resolved candidate;
    candidate.choice = r.choice;
    resolve_to(d, context, index, *image, candidate);
    Launch l = t(candidate.config);
    run(candidate, l, stream);  // warm-up (and the first JIT or cache effects)
    std::vector<float> times;
    for (int i = 0; i < kTimedLaunches; ++i) {
      d.check(d.cuEventRecord(start, stream), "recording an event");
      run(candidate, l, stream);
      d.check(d.cuEventRecord(stop, stream), "recording an event");
      d.check(d.cuEventSynchronize(stop),
              std::string(kernel_.name) + ": online tuning of " + describe_config(kernel_, index));
      float ms = 0;
      d.check(d.cuEventElapsedTime(&ms, start, stop), "reading an event timer");
      times.push_back(ms);
    }
    std::nth_element(times.begin(), times.begin() + kTimedLaunches / 2, times.end());
    const float median = times[kTimedLaunches / 2];
    if (best_ms < 0 || median < best_ms) {
      best_ms = median;
      best = index;
    }
  }

  resolve_to(d, context, best, *runnable_image(kernel_, best, context.gpu, options_.choose), r);
  r.choice.rule = Rule::Online;
  state_->online->store(kernel_.name, context.gpu.name, key, kernel_.configs[static_cast<std::size_t>(best)].id);
  r.online_pending.store(false, std::memory_order_release);
  // The caller's launch, with the config kept.
  Launch l = t(r.config);
  run(r, l, stream);
}

}  // namespace ktune
