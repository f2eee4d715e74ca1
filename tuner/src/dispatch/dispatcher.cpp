#include "ktune/dispatcher.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "dispatch/dispatcher_state.hpp"
#include "ktune/driver.hpp"
#include "ktune/launch_config.hpp"

namespace ktune {

// Looked up once: every launch needs it.
const Driver& dispatch_detail::driver_or_throw(const char* kernel) {
  static const auto found = [] {
    std::pair<const Driver*, std::string> f;
    f.first = Driver::get_with_gpu(&f.second);
    return f;
  }();
  if (!found.first) throw Error(std::string("ktune: ") + kernel + ": cannot launch: " + found.second);
  return *found.first;
}

namespace {

std::atomic<uint64_t> next_serial{1};

// The last few resolutions this thread used: a hit costs a few compares, no lock.
struct FastEntry {
  uint64_t serial = 0;
  unsigned long long context = 0;
  std::size_t dims = 0;
  int64_t key[8] = {};
  const Dispatcher::Resolved* resolved = nullptr;
};
constexpr std::size_t kFastEntries = 4;
thread_local FastEntry fast_cache[kFastEntries];
thread_local std::size_t fast_next = 0;

// The id of the context this thread last launched in: cuCtxGetId is asked only when the
// current context changes. (A context destroyed and re-created at the same address is
// caught by the launch failing; see Dispatcher::run.)
struct LastContext {
  CUcontext handle = nullptr;
  unsigned long long id = 0;
};
thread_local LastContext last_context;

void forget_thread_caches() {
  last_context = {};
  for (FastEntry& e : fast_cache) e = {};
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

}  // namespace

DispatchOptions DispatchOptions::from_environment() {
  DispatchOptions o;
  o.choose.use_cubins = !env_flag("KTUNE_NO_CUBINS");
  o.online = env_flag("KTUNE_ONLINE");
  if (const char* f = std::getenv("KTUNE_ONLINE_CACHE")) o.online_cache = f;
  return o;
}

Dispatcher::Dispatcher(const BakedKernel& kernel, DispatchOptions options)
    : kernel_(kernel),
      options_(std::move(options)),
      state_(std::make_unique<State>()),
      serial_(next_serial.fetch_add(1)) {}

// Modules stay loaded: at exit the contexts (and the driver) may already be gone.
Dispatcher::~Dispatcher() = default;

namespace dispatch_detail {

std::string describe_config(const BakedKernel& k, int32_t index) {
  const BakedConfig& c = k.configs[static_cast<std::size_t>(index)];
  std::string s = std::string("config ") + c.id + " (";
  for (std::size_t i = 0; i < c.values.size() && i < k.parameters.size(); ++i)
    s += (i ? " " : "") + std::string(k.parameters[i]) + "=" + std::to_string(c.values[i]);
  return s + ")";
}

// The context launches go to: the current one, or device 0's primary context.
CUcontext current_context(const Driver& d, const char* kernel) {
  CUcontext ctx = nullptr;
  const CUresult r = d.cuCtxGetCurrent(&ctx);  // every launch: no message built unless it fails
  if (r != CUDA_SUCCESS) d.check(r, std::string(kernel) + ": reading the current context");
  if (ctx) return ctx;
  CUdevice dev = 0;
  d.check(d.cuDeviceGet(&dev, 0), std::string(kernel) + ": opening GPU 0");
  d.check(d.cuDevicePrimaryCtxRetain(&ctx, dev), std::string(kernel) + ": retaining GPU 0's primary context");
  d.check(d.cuCtxSetCurrent(ctx), std::string(kernel) + ": making GPU 0's primary context current");
  return ctx;
}

CUfunction load_function(const Driver& d, const BakedKernel& k, int32_t index, ImageKind image, const GpuInfo& gpu) {
  const BakedConfig& c = k.configs[static_cast<std::size_t>(index)];
  const std::string what = std::string(k.name) + ": " + describe_config(k, index);
  CUmodule module = nullptr;
  if (image == ImageKind::Cubin) {
    const BakedCubin* cubin = runnable_cubin(c, gpu);
    if (!cubin) throw Error(what + ": no cubin of it runs on " + gpu.name);
    d.check(d.cuModuleLoadData(&module, cubin->image.data), what + ": loading its cubin");
  } else {
    char log[4096] = {};
    CUjit_option names[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log, reinterpret_cast<void*>(sizeof log)};
    CUresult r = d.cuModuleLoadDataEx(&module, c.ptx.data, 2, names, values);
    if (r != CUDA_SUCCESS)
      throw CudaError(what + ": JIT-compiling its PTX: " + d.describe(r) + (log[0] ? std::string("; ") + log : ""), r);
  }
  CUfunction fn = nullptr;
  d.check(d.cuModuleGetFunction(&fn, module, k.entry), what + ": finding kernel '" + std::string(k.entry) + "'");
  return fn;
}

}  // namespace dispatch_detail

using namespace dispatch_detail;

void Dispatcher::resolve_to(const Driver& d, Context& context, int32_t index, ImageKind image, Resolved& r) const {
  const BakedKernel& k = kernel_;
  auto& fn = context.functions[{index, image}];
  if (!fn) {
    fn = load_function(d, k, index, image, context.gpu);
    const BakedConfig& bc = k.configs[static_cast<std::size_t>(index)];
    for (std::size_t i = 0; i < bc.values.size() && i < k.parameters.size(); ++i)
      if (std::string_view(k.parameters[i]) == "num_ctas" && bc.values[i] > 8)
        d.check(d.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
                std::string(k.name) + ": allowing a non-portable cluster size");
  }
  const BakedConfig& bc = k.configs[static_cast<std::size_t>(index)];
  r.function = fn;
  r.config = Config(std::vector<std::string>(k.parameters.begin(), k.parameters.end()),
                    std::vector<int64_t>(bc.values.begin(), bc.values.end()), bc.id);
  r.num_ctas = r.config.get_or("num_ctas", 1);
  r.choice.config = index;
  r.choice.image = image;
  r.choice.arch = image_arch(k, index, image, context.gpu);
}

Choice Dispatcher::choice(std::span<const int64_t> key) { return resolve(key).choice; }

const Dispatcher::Resolved& Dispatcher::resolve(std::span<const int64_t> key) {
  const Driver& d = driver_or_throw(kernel_.name);
  CUcontext ctx = current_context(d, kernel_.name);
  if (ctx != last_context.handle || last_context.id == 0) {
    unsigned long long id = 0;
    d.check(d.cuCtxGetId(ctx, &id), std::string(kernel_.name) + ": reading the context's id");
    last_context = {ctx, id};
  }
  const unsigned long long ctx_id = last_context.id;

  const bool fast = key.size() <= 8;
  if (fast)
    for (const FastEntry& e : fast_cache)
      if (e.serial == serial_ && e.context == ctx_id && e.dims == key.size() &&
          std::equal(key.begin(), key.end(), e.key) && !e.resolved->online_pending.load(std::memory_order_acquire))
        return *e.resolved;

  std::lock_guard lock(state_->mutex);
  auto& context = state_->contexts[ctx_id];
  if (!context) {
    context = std::make_unique<Context>();
    context->handle = ctx;
    d.check(d.cuCtxGetDevice(&context->device), std::string(kernel_.name) + ": reading the context's device");
    context->gpu = query_gpu_info(d, context->device);
  }
  std::vector<int64_t> key_values(key.begin(), key.end());
  auto& slot = context->keys[key_values];
  if (!slot) {
    Choice c = choose(kernel_, context->gpu, key, options_.choose);
    bool pending = false;
    if (options_.online && c.rule != Rule::Exact) {
      if (!state_->online) state_->online = std::make_unique<OnlineCache>(options_.online_cache);
      pending = true;
      if (auto id = state_->online->find(kernel_.name, context->gpu.name, key))
        for (std::size_t i = 0; i < kernel_.configs.size(); ++i)
          if (*id == kernel_.configs[i].id)
            if (auto image = runnable_image(kernel_, static_cast<int32_t>(i), context->gpu, options_.choose)) {
              c.config = static_cast<int32_t>(i);
              c.image = *image;
              c.rule = Rule::Online;
              pending = false;
            }
    }
    auto r = std::make_unique<Resolved>();
    r->choice = c;
    resolve_to(d, *context, c.config, c.image, *r);
    r->online_pending.store(pending, std::memory_order_release);
    slot = std::move(r);
  }
  if (fast) {
    FastEntry& e = fast_cache[fast_next++ % kFastEntries];
    e = FastEntry{serial_, ctx_id, key.size(), {}, slot.get()};
    std::copy(key.begin(), key.end(), e.key);
  }
  return *slot;
}

bool Dispatcher::run(const Resolved& r, Launch& l, CUstream stream, bool may_retry) {
  const Driver& d = driver_or_throw(kernel_.name);
  auto fail = [&](const std::string& what, CUresult res) {
    throw CudaError(std::string(kernel_.name) + ": " + describe_config(kernel_, r.choice.config) + ", " +
                        r.choice.describe() + ": " + what + ": " + d.describe(res),
                    res);
  };
  if (l.shared_bytes > r.shared_opted_in.load(std::memory_order_relaxed)) {
    CUresult res = d.cuFuncSetAttribute(r.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        static_cast<int>(l.shared_bytes));
    if (res != CUDA_SUCCESS) fail("opting in to " + std::to_string(l.shared_bytes) + " bytes of shared memory", res);
    r.shared_opted_in.store(l.shared_bytes, std::memory_order_relaxed);
  }
  const LaunchConfig cfg(l, r.num_ctas, stream);
  CUresult res = d.cuLaunchKernelEx(cfg.get(), r.function, l.args.pointers(), nullptr);
  if (res == CUDA_SUCCESS) return true;
  if (may_retry && (res == CUDA_ERROR_INVALID_HANDLE || res == CUDA_ERROR_CONTEXT_IS_DESTROYED ||
                    res == CUDA_ERROR_INVALID_CONTEXT)) {
    forget_thread_caches();
    return false;
  }
  fail("launch", res);
  return false;
}

}  // namespace ktune
