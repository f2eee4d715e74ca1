#pragma once
// Measuring on several GPUs: one worker process per GPU, each pinned to its GPU with
// CUDA_VISIBLE_DEVICES, measuring different configs at the same time. A GPU that keeps
// failing configs that pass on another GPU, or whose worker cannot start, is dropped;
// the config it had in flight is measured again elsewhere, once.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/error.hpp"
#include "ktune/worker_process.hpp"

namespace ktune {

// A worker that did not start (or said it has no GPU): its GPU's fault, not a config's.
struct WorkerStartError : Error {
  using Error::Error;
};

// One worker, restarted after every crash or timeout, holding one key's harness at a time.
class MeasuringWorker {
 public:
  // `pin`: the CUDA_VISIBLE_DEVICES value for the worker; empty leaves the environment as it is.
  MeasuringWorker(std::vector<std::string> command, std::string log, std::string pin)
      : command_(std::move(command)), log_(std::move(log)), pin_(std::move(pin)) {}

  // Starts the worker if none runs; returns its ready line. Throws WorkerStartError when
  // it cannot start; a ready line saying "no GPU" is returned as it is.
  nlohmann::json ensure();
  // Measures one request, first building the request's key's harness if this worker holds
  // another. Throws Error when the harness fails: that is no config's fault.
  WorkerProcess::Result call(const nlohmann::json& request, std::chrono::milliseconds timeout,
                             std::map<std::string, double>& phases);
  // After a sticky error the worker exits on its own: start afresh for the next config.
  void retire();
  int starts() const { return starts_; }

 private:
  std::vector<std::string> command_;
  std::string log_;
  std::string pin_;
  std::unique_ptr<WorkerProcess> worker_;
  nlohmann::json ready_;
  nlohmann::json prepared_;  // the key whose harness the worker holds
  int starts_ = 0;
};

// A GPU the tuner may measure on: its index among the GPUs the tuner sees and the
// CUDA_VISIBLE_DEVICES value that pins a worker to it (empty: no pinning, one GPU).
struct GpuSlotSpec {
  int index = 0;
  std::string pin;
  std::shared_ptr<MeasuringWorker> worker;  // one already started, to go on with; or none
};

class GpuPool {
 public:
  struct Finished {
    std::size_t tag;  // what submit() was given
    WorkerProcess::Result result;
    int gpu;                               // the index of the GPU that measured it
    std::map<std::string, double> phases;  // worker seconds by phase, harness included
  };

  GpuPool(std::vector<std::string> worker_command, std::string worker_log, std::vector<GpuSlotSpec> gpus);
  ~GpuPool();  // waits for what is in flight
  GpuPool(const GpuPool&) = delete;
  GpuPool& operator=(const GpuPool&) = delete;

  // Starts every GPU's worker at once; returns the ready lines of those that started, by
  // GPU index. A GPU whose worker does not start is dropped (see dropped()).
  std::map<int, nlohmann::json> start();

  // Queues one measure request; it runs as soon as a GPU is free.
  void submit(std::size_t tag, nlohmann::json request, std::chrono::milliseconds timeout);
  // The next request to finish. Throws Error when a harness failed, or when every GPU has
  // been dropped.
  Finished wait();
  // The same, waiting at most `timeout`; nullopt when nothing finished by then.
  std::optional<Finished> wait_for(std::chrono::milliseconds timeout);

  std::size_t idle() const;       // GPUs in use with nothing to do
  std::size_t in_flight() const;  // submitted and not yet returned by wait()
  int starts() const;             // worker processes started, on every GPU
  // Dropped GPUs and why, by index.
  std::map<int, std::string> dropped() const;
  // GPU `index`'s worker, to hand to another pool.
  std::shared_ptr<MeasuringWorker> worker(int index) const;

 private:
  struct Slot {
    GpuSlotSpec spec;
    std::shared_ptr<MeasuringWorker> worker;
    bool busy = false;
    bool dropped = false;
    std::string dropped_why;
    int strikes = 0;  // configs that failed here and then passed elsewhere, in a row
  };
  struct Job {
    std::size_t tag;
    nlohmann::json request;
    std::chrono::milliseconds timeout;
    int retry_of = -1;                           // the GPU it failed on, when a retry
    std::optional<WorkerProcess::Result> first;  // that failure
  };
  static std::string describe(const WorkerProcess::Result& r);
  std::size_t live_locked() const;

  void dispatch_locked();  // hands queued jobs to idle GPUs
  void run(std::size_t slot, Job job);
  void drop_locked(Slot& s, const std::string& why);

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Slot> slots_;
  std::deque<Job> queue_;
  std::deque<Finished> done_;
  std::exception_ptr error_;
  std::size_t running_ = 0;  // threads in run(): the destructor waits for them
  std::size_t in_flight_ = 0;
  std::vector<std::string> command_;
  std::string log_;
};

// Whether a result is one a faulty GPU could cause: the worker died or hung, or the kernel
// crashed or ran out of time.
bool may_be_the_gpus_fault(const WorkerProcess::Result& r);

}  // namespace ktune
