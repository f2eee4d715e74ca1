#include "gpu_pool.hpp"

#include <thread>

#include "ktune/key.hpp"
#include "ktune/worker_protocol.hpp"

namespace ktune {

using json = nlohmann::json;

namespace {
// Host references of big problems can take minutes on one core.
constexpr std::chrono::milliseconds kPrepareTimeout{std::chrono::minutes(30)};
constexpr std::chrono::milliseconds kStartTimeout{std::chrono::seconds(60)};
// A GPU is dropped after this many configs in a row failed on it and passed on another:
// one such config may be flaky itself (a race that crashes now and then).
constexpr int kStrikes = 2;
}  // namespace

json MeasuringWorker::ensure() {
  if (worker_ && worker_->alive() && !worker_->exited()) return ready_;
  prepared_ = nullptr;
  std::vector<std::pair<std::string, std::string>> env;
  if (!pin_.empty()) env.emplace_back("CUDA_VISIBLE_DEVICES", pin_);
  try {
    worker_ = std::make_unique<WorkerProcess>(command_, log_, env);
  } catch (const Error& e) {
    throw WorkerStartError(e.what());
  }
  auto r = worker_->wait_ready(kStartTimeout);
  if (r.outcome != WorkerProcess::Outcome::Reply) {
    worker_.reset();
    throw WorkerStartError("the measuring worker did not start (" + r.detail + "); see " + log_);
  }
  ready_ = r.reply;
  ++starts_;
  return ready_;
}

// A worker found dead before the call is replaced first, so that a death between calls is
// not blamed on the next config. A new worker, or a new key, first builds the key's harness
// (inputs, references): a harness that fails or dies there is an error of the harness,
// reported once, not a crash of every config.
WorkerProcess::Result MeasuringWorker::call(const json& request, std::chrono::milliseconds timeout,
                                            std::map<std::string, double>& phases) {
  // Once per measurement: only a worker without a GPU has its ready line read whole.
  if (!ensure().value("ready", false))
    throw WorkerStartError("the worker sees no GPU: " + ReadyReply::from_json(ready_).why);
  if (prepared_ != request.at("key")) {
    const PrepareRequest prepare{request.at("key").get<Key>()};
    auto r = worker_->call(prepare.to_json(), kPrepareTimeout);
    if (r.outcome != WorkerProcess::Outcome::Reply || !r.reply.value("prepared", false)) {
      std::string why = r.outcome == WorkerProcess::Outcome::Reply ? r.reply.value("fatal", r.reply.dump()) : r.detail;
      worker_.reset();
      throw Error("the harness failed on key " + key_id(prepare.key) + ": " + why + "; see " + log_);
    }
    if (r.reply.contains("phases"))
      for (const auto& [phase, s] : r.reply["phases"].items())
        if (s.is_number()) phases[phase] += s.get<double>();
    prepared_ = request.at("key");
  }
  return worker_->call(request, timeout);
}

void MeasuringWorker::retire() {
  worker_.reset();
  prepared_ = nullptr;
}

bool may_be_the_gpus_fault(const WorkerProcess::Result& r) {
  if (r.outcome != WorkerProcess::Outcome::Reply) return true;
  const json status = r.reply.value("status", json());
  return status == "crashed" || status == "timed-out";
}

GpuPool::GpuPool(std::vector<std::string> worker_command, std::string worker_log, std::vector<GpuSlotSpec> gpus)
    : command_(std::move(worker_command)), log_(std::move(worker_log)) {
  if (gpus.empty()) throw Error("GpuPool: no GPU to measure on");
  for (auto& g : gpus) {
    Slot s;
    s.spec = g;
    s.worker = g.worker ? g.worker : std::make_shared<MeasuringWorker>(command_, log_, g.pin);
    slots_.push_back(std::move(s));
  }
}

GpuPool::~GpuPool() {
  std::unique_lock lock(mutex_);
  queue_.clear();
  changed_.wait(lock, [&] { return running_ == 0; });
}

std::map<int, json> GpuPool::start() {
  std::vector<std::thread> threads;
  std::vector<json> ready(slots_.size());
  std::vector<std::string> failed(slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i)
    threads.emplace_back([&, i] {
      try {
        ready[i] = slots_[i].worker->ensure();
        if (const ReadyReply r = ReadyReply::from_json(ready[i]); !r.ready)
          failed[i] = "its worker sees no GPU: " + r.why;
      } catch (const std::exception& e) {
        failed[i] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  std::map<int, json> started;
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (failed[i].empty())
      started[slots_[i].spec.index] = ready[i];
    else
      drop_locked(slots_[i], failed[i]);
  }
  return started;
}

void GpuPool::submit(std::size_t tag, json request, std::chrono::milliseconds timeout) {
  std::lock_guard lock(mutex_);
  queue_.push_back({tag, std::move(request), timeout, -1, std::nullopt});
  ++in_flight_;
  dispatch_locked();
}

GpuPool::Finished GpuPool::wait() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !done_.empty() || error_; });
  if (done_.empty()) std::rethrow_exception(error_);
  Finished f = std::move(done_.front());
  done_.pop_front();
  --in_flight_;
  return f;
}

std::optional<GpuPool::Finished> GpuPool::wait_for(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return !done_.empty() || error_; });
  if (done_.empty()) {
    if (error_) std::rethrow_exception(error_);
    return std::nullopt;
  }
  Finished f = std::move(done_.front());
  done_.pop_front();
  --in_flight_;
  return f;
}

void GpuPool::drop_locked(Slot& s, const std::string& why) {
  if (s.dropped) return;
  s.dropped = true;
  s.dropped_why = why;
  if (live_locked() == 0 && in_flight_ > 0)
    error_ = std::make_exception_ptr(
        Error("every GPU was dropped; the last, GPU " + std::to_string(s.spec.index) + ": " + why));
}

std::size_t GpuPool::live_locked() const {
  std::size_t n = 0;
  for (const auto& s : slots_) n += !s.dropped;
  return n;
}

void GpuPool::dispatch_locked() {
  for (auto job = queue_.begin(); job != queue_.end();) {
    std::size_t chosen = slots_.size();
    bool elsewhere = false;  // a live GPU other than the one a retry failed on
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      const Slot& s = slots_[i];
      if (s.dropped || s.spec.index == job->retry_of) continue;
      elsewhere = true;
      if (!s.busy && chosen == slots_.size()) chosen = i;
    }
    if (job->retry_of >= 0 && !elsewhere) {
      // No GPU left to try it on: the first failure stands.
      done_.push_back({job->tag, *job->first, job->retry_of, {}});
      job = queue_.erase(job);
      changed_.notify_all();
      continue;
    }
    if (chosen == slots_.size()) {
      ++job;
      continue;
    }
    slots_[chosen].busy = true;
    ++running_;
    std::thread(&GpuPool::run, this, chosen, std::move(*job)).detach();
    job = queue_.erase(job);
  }
}

void GpuPool::run(std::size_t index, Job job) {
  Slot& s = slots_[index];  // slots_ never changes size after construction
  std::map<std::string, double> phases;
  WorkerProcess::Result r{WorkerProcess::Outcome::Died, {}, ""};
  std::string start_failed;
  std::exception_ptr harness_error;
  try {
    r = s.worker->call(job.request, job.timeout, phases);
    // After a sticky error the worker replies, then exits: start afresh.
    if (r.outcome == WorkerProcess::Outcome::Reply && r.reply.value("status", json()) == "crashed") s.worker->retire();
  } catch (const WorkerStartError& e) {
    start_failed = e.what();
  } catch (...) {
    harness_error = std::current_exception();
  }

  std::lock_guard lock(mutex_);
  s.busy = false;
  if (!start_failed.empty()) {
    // The GPU, not the config: the job goes back to the queue for another GPU.
    queue_.push_front(std::move(job));
    drop_locked(s, start_failed);
  } else if (harness_error) {
    error_ = harness_error;
  } else {
    const bool suspect = may_be_the_gpus_fault(r);
    if (suspect && s.dropped) {
      // This GPU was dropped while the config ran on it: its failure says nothing of the
      // config. Back to the queue, as it was, for a GPU still in the run.
      queue_.push_front(std::move(job));
    } else if (job.retry_of < 0 && suspect && live_locked() > 1) {
      // Measured again elsewhere before anyone blames the config (or this GPU).
      job.first = r;
      job.retry_of = s.spec.index;
      queue_.push_front(std::move(job));
    } else if (job.retry_of >= 0 && !suspect) {
      // Failed there, passed here: the GPU it failed on gets a strike.
      for (auto& other : slots_)
        if (other.spec.index == job.retry_of && ++other.strikes >= kStrikes)
          drop_locked(
              other, std::to_string(kStrikes) +
                         " configs in a row failed on it and passed on another GPU; the last: " + describe(*job.first));
      done_.push_back({job.tag, r, s.spec.index, std::move(phases)});
    } else if (job.retry_of >= 0) {
      // Failed on both: the config's own fault. The first failure is what is recorded.
      WorkerProcess::Result first = *job.first;
      const std::string also = " (measured again on GPU " + std::to_string(s.spec.index) + ": " + describe(r) + ")";
      if (first.outcome == WorkerProcess::Outcome::Reply)
        first.reply["message"] = first.reply.value("message", std::string()) + also;
      else
        first.detail += also;
      done_.push_back({job.tag, first, job.retry_of, std::move(phases)});
    } else {
      if (!suspect) s.strikes = 0;
      done_.push_back({job.tag, r, s.spec.index, std::move(phases)});
    }
  }
  dispatch_locked();
  --running_;
  changed_.notify_all();
}

std::string GpuPool::describe(const WorkerProcess::Result& r) {
  if (r.outcome == WorkerProcess::Outcome::Reply)
    return r.reply.value("status", std::string("?")) + ": " + r.reply.value("message", std::string());
  return (r.outcome == WorkerProcess::Outcome::TimedOut ? "timed out: " : "the worker died: ") + r.detail;
}

std::size_t GpuPool::idle() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& s : slots_) n += !s.dropped && !s.busy;
  return n > queue_.size() ? n - queue_.size() : 0;
}

std::size_t GpuPool::in_flight() const {
  std::lock_guard lock(mutex_);
  return in_flight_;
}

int GpuPool::starts() const {
  std::lock_guard lock(mutex_);
  int n = 0;
  for (const auto& s : slots_) n += s.worker->starts();
  return n;
}

std::map<int, std::string> GpuPool::dropped() const {
  std::lock_guard lock(mutex_);
  std::map<int, std::string> out;
  for (const auto& s : slots_)
    if (s.dropped) out[s.spec.index] = s.dropped_why;
  return out;
}

std::shared_ptr<MeasuringWorker> GpuPool::worker(int index) const {
  std::lock_guard lock(mutex_);
  for (const auto& s : slots_)
    if (s.spec.index == index) return s.worker;
  return nullptr;
}

}  // namespace ktune
