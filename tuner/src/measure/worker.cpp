// The measuring worker: a child process of the tuner that owns the GPU context. For each
// request it loads one config's cubin, refuses what cannot launch, verifies the output
// against the harness's expectation and times the kernel. A sticky CUDA error ends the
// process after its reply (the context is lost); the tuner starts a new worker.
#include "measure/worker.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <memory>

#include <nlohmann/json.hpp>

#include "ktune/driver.hpp"
#include "ktune/gpu_identity.hpp"
#include "ktune/harness.hpp"
#include "ktune/key.hpp"
#include "ktune/launch_config.hpp"
#include "ktune/measurement.hpp"
#include "ktune/stopping_rule.hpp"
#include "ktune/worker_protocol.hpp"

namespace ktune {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// The harness with device memory behind it.
class DeviceHarness : public Harness {
 public:
  DeviceHarness(const Driver& d, Key key, CUstream stream) : Harness(std::move(key)), d_(d), stream_(stream) {}
  ~DeviceHarness() override {
    for (auto& s : slots()) {
      if (s.device) d_.cuMemFree(s.device);
      if (s.pristine) d_.cuMemFree(s.pristine);
    }
    for (void* p : readback_)
      if (p) d_.cuMemFreeHost(p);
  }

  // Where output `index` is read back to: pinned host memory, made once per key, so that
  // verifying a config costs a DMA copy, not page faults and a staging copy.
  const std::byte* read_back(std::size_t index) {
    const Slot& s = slots().at(index);
    if (readback_.size() < slots().size()) readback_.resize(slots().size(), nullptr);
    if (!readback_[index])
      d_.check(d_.cuMemAllocHost(&readback_[index], s.bytes), "allocating pinned memory for an output");
    d_.check(d_.cuMemcpyDtoH(readback_[index], s.device, s.bytes), "reading an output back");
    return static_cast<const std::byte*>(readback_[index]);
  }

  // Outputs back to their fill, before every launch.
  void reset_outputs(CUstream stream) const {
    for (const auto& s : slots())
      if (s.output) d_.check(d_.cuMemcpyDtoDAsync(s.device, s.pristine, s.bytes, stream), "resetting an output");
  }

 protected:
  void upload(Slot& s) override {
    d_.check(d_.cuMemAlloc(&s.device, s.bytes), "allocating a " + std::to_string(s.bytes) + "-byte harness buffer");
    d_.check(d_.cuMemcpyHtoD(s.device, s.host.data(), s.bytes), "uploading a harness buffer");
    if (s.output) {
      d_.check(d_.cuMemAlloc(&s.pristine, s.bytes), "allocating an output's reset copy");
      d_.check(d_.cuMemcpyHtoD(s.pristine, s.host.data(), s.bytes), "uploading an output");
    }
  }

  void compute_on_device(Slot& s, const std::function<void(CUdeviceptr, CUstream)>& reference) override {
    CUdeviceptr ref = 0;
    d_.check(d_.cuMemAlloc(&ref, s.bytes), "allocating a device reference buffer");
    struct Free {
      const Driver& d;
      CUdeviceptr p;
      ~Free() { d.cuMemFree(p); }
    } free_ref{d_, ref};
    d_.check(d_.cuMemcpyHtoD(ref, s.host.data(), s.bytes), "uploading a reference buffer");
    reference(ref, stream_);
    // The reference may use any stream (cuBLAS's default one, say): wait for all of them.
    d_.check(d_.cuCtxSynchronize(), "computing the device reference (expect_on_device)");
    d_.check(d_.cuMemcpyDtoH(s.expected.data(), ref, s.bytes), "reading the device reference back");
  }

 private:
  const Driver& d_;
  CUstream stream_;
  std::vector<void*> readback_;
};

// A launch error: sticky ones end the worker, others are the config's fault.
struct LaunchFailure {
  CUresult code;
  std::string message;
};

class Worker {
 public:
  Worker(const Driver& d, WorkerChannel& channel) : d_(d), channel_(channel) {}

  int run() {
    d_.check(d_.cuDeviceGet(&device_, 0), "opening GPU 0");
    d_.check(d_.cuDevicePrimaryCtxRetain(&context_, device_), "creating a context");
    d_.check(d_.cuCtxSetCurrent(context_), "making the context current");
    d_.check(d_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "creating a stream");
    d_.check(d_.cuEventCreate(&start_, CU_EVENT_DEFAULT), "creating an event");
    d_.check(d_.cuEventCreate(&stop_, CU_EVENT_DEFAULT), "creating an event");
    GpuIdentity gpu = identity();
    // The L2 is flushed before each timed launch by writing a buffer twice its size.
    flush_bytes_ = std::max<uint64_t>(2 * gpu.l2_bytes, 8u << 20);
    d_.check(d_.cuMemAlloc(&flush_, flush_bytes_), "allocating the L2 flush buffer");
    // How many GPUs this process sees: the tuner starts one worker per GPU from it.
    int visible = 1;
    d_.check(d_.cuDeviceGetCount(&visible), "counting GPUs");
    channel_.reply(ReadyReply{true, "", gpu, visible}.to_json());

    while (auto request = channel_.next_request()) {
      json reply;
      bool sticky = false;
      if (request_op(*request) == "prepare") {
        // The harness for a key: its failure is no config's fault, so it is fatal.
        const auto start = Clock::now();
        try {
          prepare_key(request->at("key").get<Key>());
          reply = {{"prepared", true},
                   {"phases", {{"harness", std::chrono::duration<double>(Clock::now() - start).count()}}}};
        } catch (const CudaError& e) {
          sticky = is_sticky(e.code());
          reply = {{"fatal", e.what()}};
        } catch (const std::exception& e) {
          reply = {{"fatal", e.what()}};
        }
        channel_.reply(reply);
        if (sticky) return 3;
        continue;
      }
      try {
        reply = measure(*request, sticky);
      } catch (const CudaError& e) {
        sticky = is_sticky(e.code());
        Measurement m;
        m.status = sticky ? Status::Crashed : Status::LaunchFailed;
        m.message = e.what();
        reply = m.to_json();
      } catch (const std::exception& e) {
        // The harness or the launch template failed: no config can be measured.
        reply = {{"fatal", e.what()}};
      }
      channel_.reply(reply);
      if (sticky) return 3;  // the context is unusable; the tuner starts a new worker
    }
    return 0;
  }

 private:
  GpuIdentity identity() {
    GpuIdentity g = query_gpu(d_, device_);
    auto attr = [&](CUdevice_attribute a) {
      int v = 0;
      d_.cuDeviceGetAttribute(&v, a, device_);
      return v;
    };
    max_shared_optin_ = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    max_grid_ = {static_cast<uint32_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)),
                 static_cast<uint32_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)),
                 static_cast<uint32_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z))};
    return g;
  }

  // Builds the harness for a new key (inputs, outputs, expectations): once per key.
  void prepare_key(const Key& values) {
    if (harness_ && harness_->key_values() == values) return;
    harness_.reset();
    harness_ = std::make_unique<DeviceHarness>(d_, values, stream_);
    ktune_harness(*harness_);
    if (!harness_->launch_template())
      throw Error("the harness gave no launch template; call h.launch(...) in ktune_harness");
    bool any_expectation = false;
    for (const auto& s : harness_->slots()) any_expectation |= s.output && !s.expected.empty();
    if (!any_expectation)
      throw Error(
          "the harness checks no output; call h.expect(output, reference) so that a "
          "wrong config cannot win");
  }

  // Launches once; returns the failure, if any, after synchronising.
  std::optional<LaunchFailure> launch_once(CUfunction fn, Launch& l, const LaunchConfig& cfg, bool timed, float* ms) {
    harness_->reset_outputs(stream_);
    if (timed) {
      d_.check(d_.cuMemsetD32Async(flush_, 0, flush_bytes_ / 4, stream_), "flushing the L2");
      d_.check(d_.cuEventRecord(start_, stream_), "recording an event");
    }
    CUresult r = d_.cuLaunchKernelEx(cfg.get(), fn, l.args.pointers(), nullptr);
    if (r != CUDA_SUCCESS) return LaunchFailure{r, "launch: " + d_.describe(r)};
    if (timed) d_.check(d_.cuEventRecord(stop_, stream_), "recording an event");
    r = d_.cuStreamSynchronize(stream_);
    if (r != CUDA_SUCCESS) return LaunchFailure{r, "kernel: " + d_.describe(r)};
    if (timed) d_.check(d_.cuEventElapsedTime(ms, start_, stop_), "reading the event timer");
    return std::nullopt;
  }

  // One measurement's record and where its time went, for the tuner's breakdown: harness
  // setup (a new key), loading and checking the cubin, verifying, timing.
  struct Attempt {
    Measurement m;
    json phases = {{"harness", 0.0}, {"load", 0.0}, {"verify", 0.0}, {"measure", 0.0}};
    Clock::time_point start = Clock::now(), phase_start = start;
    const char* current = "load";
    bool sticky = false;

    void end_phase(const char* name) {
      const auto now = Clock::now();
      phases[name] = phases[name].get<double>() + std::chrono::duration<double>(now - phase_start).count();
      phase_start = now;
    }
    void next_phase(const char* name) {
      end_phase(current);
      current = name;
    }
    json finish(Status s, std::string message) {
      end_phase(current);
      m.status = s;
      m.message = std::move(message);
      m.seconds = std::chrono::duration<double>(Clock::now() - start).count();
      json reply = m.to_json();
      reply["phases"] = phases;
      return reply;
    }
    json failed(const LaunchFailure& f) {
      sticky = is_sticky(f.code);
      return finish(sticky ? Status::Crashed : Status::LaunchFailed, f.message);
    }
  };

  json measure(const json& request, bool& sticky) {
    Attempt a;
    const MeasureRequest req = MeasureRequest::from_json(request);
    prepare_key(req.key);
    a.end_phase("harness");
    json reply = measure_config(req, a);
    sticky = a.sticky;
    return reply;
  }

  json measure_config(const MeasureRequest& req, Attempt& a) {
    const Config config(req.names, req.values, req.config_id);
    std::ifstream file(req.cubin, std::ios::binary);
    std::vector<char> image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (image.empty()) return a.finish(Status::LaunchFailed, "cubin missing or empty: " + req.cubin);
    CUmodule module = nullptr;
    CUresult r = d_.cuModuleLoadData(&module, image.data());
    if (r != CUDA_SUCCESS) {
      a.sticky = is_sticky(r);
      return a.finish(a.sticky ? Status::Crashed : Status::Resource, "loading the cubin: " + d_.describe(r));
    }
    struct Unload {
      const Driver& d;
      CUmodule m;
      ~Unload() { d.cuModuleUnload(m); }
    } unload{d_, module};
    CUfunction fn = nullptr;
    r = d_.cuModuleGetFunction(&fn, module, req.entry.c_str());
    if (r != CUDA_SUCCESS)
      return a.finish(Status::LaunchFailed,
                      "no kernel '" + req.entry + "' in the cubin (declare it extern \"C\"): " + d_.describe(r));
    read_resources(fn, a.m.resources);
    if (auto failure = copy_constants(module)) return a.finish(Status::LaunchFailed, *failure);

    // The user's launch template: an exception here (a misspelt parameter) is fatal.
    Launch l = harness_->launch_template()(config);
    const int64_t num_ctas = config.get_or("num_ctas", 1);
    const LaunchConfig cfg(l, num_ctas, stream_);
    if (auto refused = refuse_unrunnable(fn, l, cfg, num_ctas, a.m.resources))
      return a.finish(Status::Resource, *refused);

    a.next_phase("verify");
    if (auto reply = verify(fn, l, cfg, a)) return *reply;
    a.next_phase("measure");
    return time_config(fn, l, cfg, req, a);
  }

  void read_resources(CUfunction fn, Resources& out) const {
    auto fattr = [&](CUfunction_attribute attribute) {
      int v = 0;
      d_.cuFuncGetAttribute(&v, attribute, fn);
      return v;
    };
    out.registers = fattr(CU_FUNC_ATTRIBUTE_NUM_REGS);
    out.static_shared_bytes = fattr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    out.local_bytes = fattr(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    out.max_threads_per_block = fattr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  }

  // Arguments in constant memory (Harness::constant): this module's copy of each variable.
  // Returns why one cannot be set.
  std::optional<std::string> copy_constants(CUmodule module) const {
    for (const auto& copy : harness_->constants()) {
      const auto& s = harness_->slots().at(copy.slot);
      CUdeviceptr symbol = 0;
      std::size_t bytes = 0;
      const CUresult r = d_.cuModuleGetGlobal(&symbol, &bytes, module, copy.symbol.c_str());
      if (r != CUDA_SUCCESS)
        return "no __constant__ variable '" + copy.symbol + "' in the cubin (" + d_.describe(r) +
               "); declare it at file scope in the kernel source";
      if (bytes < s.bytes)
        return "__constant__ variable '" + copy.symbol + "' has " + std::to_string(bytes) +
               " bytes; its argument has " + std::to_string(s.bytes);
      d_.check(d_.cuMemcpyHtoD(symbol, s.host.data(), s.bytes), "copying to __constant__ " + copy.symbol);
    }
    // A copy from pageable memory may still be in flight when the call returns, and the
    // stream the kernel runs on does not wait for it.
    if (!harness_->constants().empty()) d_.check(d_.cuCtxSynchronize(), "copying to __constant__ memory");
    return std::nullopt;
  }

  // Refuses, without launching, what this GPU cannot run (the reason), after opting in to
  // what the launch needs (large dynamic shared memory, non-portable clusters).
  std::optional<std::string> refuse_unrunnable(CUfunction fn, const Launch& l, const LaunchConfig& cfg,
                                               int64_t num_ctas, const Resources& res) const {
    const uint64_t threads = l.block.count();
    if (threads == 0 || threads > static_cast<uint64_t>(res.max_threads_per_block))
      return "block of " + std::to_string(threads) + " threads; this kernel allows at most " +
             std::to_string(res.max_threads_per_block) + " (" + std::to_string(res.registers) + " registers a thread)";
    if (l.grid.count() == 0 || l.grid.x > max_grid_.x || l.grid.y > max_grid_.y || l.grid.z > max_grid_.z)
      return "grid (" + std::to_string(l.grid.x) + ", " + std::to_string(l.grid.y) + ", " + std::to_string(l.grid.z) +
             ") is empty or beyond the GPU's limits";
    const int shared = res.static_shared_bytes + static_cast<int>(l.shared_bytes);
    if (shared > max_shared_optin_)
      return std::to_string(shared) + " bytes of shared memory a block; this GPU allows " +
             std::to_string(max_shared_optin_);
    if (l.shared_bytes > 48 * 1024)  // above 48 KiB dynamic shared memory is opt-in
      d_.check(
          d_.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(l.shared_bytes)),
          "opting in to " + std::to_string(l.shared_bytes) + " bytes of dynamic shared memory");
    if (num_ctas <= 1) return std::nullopt;
    if (l.grid.x % num_ctas != 0)
      return "grid.x " + std::to_string(l.grid.x) + " is not a multiple of num_ctas " + std::to_string(num_ctas);
    if (num_ctas > 8)
      d_.check(d_.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
               "allowing a non-portable cluster size");
    int clusters = 0;
    const CUresult r = d_.cuOccupancyMaxActiveClusters(&clusters, fn, cfg.get());
    if (r != CUDA_SUCCESS || clusters == 0)
      return "a cluster of " + std::to_string(num_ctas) + " blocks cannot be scheduled" +
             (r != CUDA_SUCCESS ? ": " + d_.describe(r) : std::string());
    return std::nullopt;
  }

  // Verify before any time counts; twice, from outputs reset to their fill each time: a
  // kernel that races, or reads what an earlier launch left, can match once by luck.
  // Returns the reply of a config that fails.
  std::optional<json> verify(CUfunction fn, Launch& l, const LaunchConfig& cfg, Attempt& a) {
    for (int run = 0; run < 2; ++run) {
      if (auto f = launch_once(fn, l, cfg, false, nullptr)) return a.failed(*f);
      std::size_t bad = 0, checked = 0;
      for (std::size_t i = 0; i < harness_->slots().size(); ++i) {
        const auto& s = harness_->slots()[i];
        if (!s.output || s.expected.empty()) continue;
        const std::byte* got = harness_->read_back(i);
        auto [worst, count] = s.compare(got, s.expected.data(), s.elements, s.tolerance);
        a.m.max_error = std::max(a.m.max_error, worst);
        bad += count;
        checked += s.elements;
      }
      if (bad > 0)
        return a.finish(Status::WrongResult,
                        std::string(run ? "nondeterministic: the first run matched; the second had " : "") +
                            std::to_string(bad) + " of " + std::to_string(checked) +
                            " output elements beyond tolerance; max error " + std::to_string(a.m.max_error));
    }
    return std::nullopt;
  }

  // Warm-up launches, then timed ones until the stopping rule is satisfied or the config is
  // clearly slower than the best so far (abandoned).
  json time_config(CUfunction fn, Launch& l, const LaunchConfig& cfg, const MeasureRequest& req, Attempt& a) {
    for (int i = 0; i < req.warmup; ++i)
      if (auto f = launch_once(fn, l, cfg, false, nullptr)) return a.failed(*f);
    const auto timing_start = Clock::now();
    while (true) {
      float ms = 0;
      if (auto f = launch_once(fn, l, cfg, true, &ms)) return a.failed(*f);
      a.m.samples_ms.push_back(ms);
      const double spent = std::chrono::duration<double>(Clock::now() - timing_start).count();
      if (req.best_ms > 0 && req.rule.clearly_slower(a.m.samples_ms, req.best_ms)) {
        a.m.abandoned = true;
        break;
      }
      if (req.rule.enough(a.m.samples_ms, spent)) break;
    }
    a.m.median_ms = summarize(a.m.samples_ms).median;
    return a.finish(Status::Ok, "");
  }

  const Driver& d_;
  WorkerChannel& channel_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  CUevent start_ = nullptr, stop_ = nullptr;
  CUdeviceptr flush_ = 0;
  uint64_t flush_bytes_ = 0;
  int max_shared_optin_ = 0;
  Dim3 max_grid_;
  std::unique_ptr<DeviceHarness> harness_;
};

}  // namespace

int run_worker(int reply_fd) {
  WorkerChannel channel(reply_fd);
  std::string why;
  const Driver* d = Driver::get_with_gpu(&why);
  if (!d) {
    channel.reply(ReadyReply{false, why, {}, 0}.to_json());
    return 0;
  }
  try {
    Worker worker(*d, channel);
    return worker.run();
  } catch (const std::exception& e) {
    channel.reply({{"fatal", e.what()}});
    return 1;
  }
}

}  // namespace ktune
