#pragma once
// Launches a baked kernel with the config chosen for the GPU it runs on and the key:
//
//   ktune_sgemm::dispatcher().launch({M, N, K}, sgemm_launch(A, B, C, M, N, K), stream);
//
// The first launch of a key in a context chooses the config (choose.hpp), loads its module
// (cubin, or PTX through the driver's JIT) and keeps the function; later launches find it
// in a per-thread cache and cost one cuLaunchKernelEx plus the launch template. Thread-safe;
// one module per config and context, so several GPUs (contexts) in one process each get
// their own choice. Uses the current context, or device 0's primary context if none is
// current. Errors throw ktune::Error (ktune::CudaError for driver errors) naming the
// kernel, the config and the CUDA error.
//
// Environment: KTUNE_NO_CUBINS=1 loads PTX only (tests the JIT path); KTUNE_ONLINE=1 tunes
// keys that were not tuned on first use (online.hpp).
#include <cuda.h>

#include <array>
#include <atomic>
#include <type_traits>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "ktune/baked.hpp"
#include "ktune/choose.hpp"
#include "ktune/config.hpp"
#include "ktune/launch.hpp"

namespace ktune {

struct Driver;

struct DispatchOptions {
  ChooseOptions choose;
  bool online = false;       // measure the portfolio for untuned keys (online.hpp)
  std::string online_cache;  // file of online choices; empty: the default place
  static DispatchOptions from_environment();
};

class Dispatcher {
 public:
  explicit Dispatcher(const BakedKernel& kernel, DispatchOptions options = DispatchOptions::from_environment());
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // What a key gets on the current context's GPU, and by which rule. Loads nothing.
  Choice choice(std::span<const int64_t> key);
  Choice choice(std::initializer_list<int64_t> key) { return choice(std::span(key.begin(), key.size())); }

  // The config a key gets (loading its module), e.g. to size a workspace.
  const Config& config(std::span<const int64_t> key) { return resolve(key).config; }

  // Launches on `stream`: `launch_template(config)` gives grid, block, shared memory and
  // arguments (a callable taking const ktune::Config&).
  template <typename F>
  void launch(std::span<const int64_t> key, F&& launch_template, CUstream stream = nullptr) {
    const Resolved& r = resolve(key);
    if (r.online_pending.load(std::memory_order_acquire))
      return launch_online(key, LaunchTemplate(launch_template), stream);
    Launch l = launch_template(r.config);
    if (run(r, l, stream, /*may_retry=*/true)) return;
    // The context this thread last used was destroyed and another made at its address:
    // resolve afresh, once.
    const Resolved& again = resolve(key);
    Launch l2 = launch_template(again.config);
    run(again, l2, stream, false);
  }
  template <typename F>
  void launch(std::initializer_list<int64_t> key, F&& launch_template, CUstream stream = nullptr) {
    launch(std::span(key.begin(), key.size()), std::forward<F>(launch_template), stream);
  }

  const BakedKernel& kernel() const { return kernel_; }

  // One key's resolution in one context: what to launch and how.
  struct Resolved {
    CUfunction function = nullptr;
    Config config;
    Choice choice;
    int64_t num_ctas = 1;
    mutable std::atomic<uint32_t> shared_opted_in{48 * 1024};
    std::atomic<bool> online_pending{false};  // KTUNE_ONLINE: not measured yet
  };

 private:
  struct State;
  struct Context;

  const Resolved& resolve(std::span<const int64_t> key);
  // Points `r` at config `index` through `image`: its function (loaded once per context),
  // its Config and its cluster size.
  void resolve_to(const Driver& d, Context& context, int32_t index, ImageKind image, Resolved& r) const;
  // Launches; throws on failure. With may_retry, returns false instead (after forgetting
  // this thread's cached context) when the failure says the context is gone.
  bool run(const Resolved& r, Launch& l, CUstream stream, bool may_retry = false);
  void launch_online(std::span<const int64_t> key, const LaunchTemplate& t, CUstream stream);

  const BakedKernel& kernel_;
  DispatchOptions options_;
  std::unique_ptr<State> state_;
  const uint64_t serial_;  // tells this dispatcher's cached entries from another's
};

// For generated headers: launches with a template that takes the kernel's typed config
// (TypedConfig::of builds it) or a plain ktune::Config.
template <typename TypedConfig, typename F, std::size_t N>
void launch_typed(Dispatcher& d, const std::array<int64_t, N>& key, F& launch_template, CUstream stream) {
  const std::span<const int64_t> k(key.data(), N);
  if constexpr (std::is_invocable_v<F&, const TypedConfig&>)
    d.launch(
        k, [&launch_template](const Config& c) { return launch_template(TypedConfig::of(c)); }, stream);
  else
    d.launch(k, launch_template, stream);
}

}  // namespace ktune
