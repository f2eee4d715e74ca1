#include "ktune/compile_pool.hpp"

#include <set>

#include "ktune/build_plan.hpp"
#include "ktune/depfile.hpp"
#include "ktune/error.hpp"

namespace ktune {

namespace fs = std::filesystem;

bool compile_is_current(const CompileJob& job) {
  std::error_code ec;
  const auto written = fs::last_write_time(job.record, ec);
  if (ec) return false;
  CompileRecord record;
  try {
    record = CompileRecord::read(job.record);
  } catch (const Error&) {
    return false;  // damaged: compile again
  }
  if (record.command_digest != command_digest(job.command)) return false;
  if (record.status == "ok" && !fs::exists(job.cubin)) return false;
  std::string text;
  try {
    text = read_file(job.depfile);
  } catch (const Error&) {
    return false;
  }
  std::set<std::string> inputs;
  add_depfile_inputs(text, inputs);
  if (inputs.empty()) return false;
  for (const auto& input : inputs) {
    const auto t = fs::last_write_time(input, ec);
    if (ec || t > written) return false;  // gone or changed since: compile again
  }
  return true;
}

CompilePool::CompilePool(const Manifest& manifest, fs::path kernel_dir, unsigned jobs)
    : manifest_(manifest), dir_(std::move(kernel_dir)), jobs_(jobs < 1 ? 1 : jobs) {
  for (unsigned t = 0; t < jobs_; ++t) threads_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();  // not started: nothing to finish
  }
  changed_.notify_all();
  for (auto& t : threads_) t.join();
}

void CompilePool::submit(std::size_t tag, const ManifestConfig& config) {
  CompileJob job = compile_job(manifest_, config, dir_);
  // A current record needs no thread: answered as soon as the caller asks.
  const bool current = compile_is_current(job);
  {
    std::lock_guard lock(mutex_);
    if (current)
      done_.push_back({tag, false, 0});
    else
      queue_.emplace_back(tag, std::move(job));
  }
  changed_.notify_all();
}

std::optional<CompilePool::Done> CompilePool::wait_for(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return !done_.empty() || error_; });
  if (error_) std::rethrow_exception(error_);
  if (done_.empty()) return std::nullopt;
  Done d = done_.front();
  done_.pop_front();
  return d;
}

void CompilePool::compile_all(const std::vector<ManifestConfig>& configs) {
  for (std::size_t i = 0; i < configs.size(); ++i) submit(i, configs[i]);
  for (std::size_t done = 0; done < configs.size();)
    if (wait_for(std::chrono::milliseconds(100))) ++done;
}

std::size_t CompilePool::free_slots() const {
  std::lock_guard lock(mutex_);
  const std::size_t busy = compiling_ + queue_.size();
  return busy >= jobs_ ? 0 : jobs_ - busy;
}

double CompilePool::busy_seconds() const {
  std::lock_guard lock(mutex_);
  return busy_s_;
}

void CompilePool::work() {
  for (;;) {
    std::pair<std::size_t, CompileJob> next;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping
      next = std::move(queue_.front());
      queue_.pop_front();
      ++compiling_;
    }
    Done d{next.first, true, 0};
    std::exception_ptr failed;
    try {
      d.wall_s = run_compile_job(next.second).wall_s;
    } catch (...) {
      failed = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      --compiling_;
      busy_s_ += d.wall_s;
      if (failed && !error_) error_ = failed;
      done_.push_back(d);
    }
    changed_.notify_all();
  }
}

}  // namespace ktune
