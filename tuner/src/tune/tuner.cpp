#include "ktune/tuner.hpp"

#include <chrono>
#include <deque>
#include <cstdio>
#include <future>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ktune/cuda_arch.hpp"
#include "ktune/compile_record.hpp"
#include "ktune/tune_prior.hpp"
#include "ktune/db.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/key.hpp"
#include "ktune/manifest.hpp"
#include "ktune/compile_pool.hpp"
#include "ktune/process.hpp"
#include "ktune/progress.hpp"
#include "ktune/text.hpp"
#include "ktune/worker_process.hpp"
#include "ktune/worker_protocol.hpp"
#include "tune/gpu_pool.hpp"

namespace ktune {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

std::string nvcc_version(const std::string& nvcc) {
  ProcessOptions io;
  io.capture_stdout = true;
  io.stderr_file = "/dev/null";
  const std::string out = run_process({nvcc, "--version"}, io).output;
  auto v = out.rfind(", V");
  if (v == std::string::npos) return "unknown";
  auto end = out.find_first_of(" \n", v + 3);
  return out.substr(v + 3, end - v - 3);
}

json values_json(const Manifest& m, const ManifestConfig& c) {
  json v = json::object();
  for (std::size_t k = 0; k < c.values.size(); ++k) v[m.spec.parameters[k].name] = c.values[k];
  return v;
}

struct KeySummary {
  std::string key;
  std::map<std::string, int> counts;  // by status
  double best_ms = -1;
  std::string best_id;
  std::size_t best_index = 0;
  double default_ms = -1;
  std::size_t measured_now = 0, from_db = 0;
  std::map<std::string, double> phases;  // seconds the workers spent, by phase
  double samples_ms_total = 0;           // sum of every timed sample: the kernel's own time
  double seconds = 0;                    // wall time of this key
  // Configs the compile pool compiled (a current cubin is not compiled again), the
  // compilers' wall time summed, and how long the GPUs stood waiting for a cubin (what the
  // pipeline did not hide).
  std::size_t compiled_asked = 0;
  double compile_s = 0, compile_wait_s = 0;
  nlohmann::json failures = nlohmann::json::array();  // every config that was not ok, and why
  std::map<int, std::size_t> measured_on;             // configs measured, by GPU index
  TunePrior prior;                                    // what other GPUs found, measured first
  std::size_t prior_used = 0;                         // how many of its configs the search measured first
};

// The GPUs to measure on, as indices of the GPUs the tuner sees, each with the
// CUDA_VISIBLE_DEVICES value that pins a worker to it: the tuner's own list's entry where
// it has one (GPU 1 of "4,6" is "6"), else the index. One visible GPU is not pinned.
std::vector<GpuSlotSpec> choose_gpus(const std::vector<int>& wanted, int visible) {
  std::vector<std::string> physical;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v && *v) {
    std::string list = v;
    for (std::size_t start = 0; start <= list.size();) {
      std::size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      physical.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  }
  // CUDA stops its list at the first entry it cannot use: the first `visible` are the GPUs.
  if (physical.size() > static_cast<std::size_t>(visible)) physical.resize(visible);
  for (int i = static_cast<int>(physical.size()); i < visible; ++i) physical.push_back(std::to_string(i));

  std::vector<int> indices = wanted;
  if (indices.empty())
    for (int i = 0; i < visible; ++i) indices.push_back(i);
  std::vector<GpuSlotSpec> out;
  for (int i : indices) {
    if (i < 0 || i >= visible)
      throw Error("--gpus: GPU " + std::to_string(i) + " does not exist; the tuner sees " + std::to_string(visible) +
                  " GPU(s), numbered from 0" + (visible > 1 ? " to " + std::to_string(visible - 1) : std::string()) +
                  " (after CUDA_VISIBLE_DEVICES)");
    for (const auto& g : out)
      if (g.index == i) throw Error("--gpus: GPU " + std::to_string(i) + " is listed twice; name each GPU once");
    out.push_back({i, visible > 1 ? physical[i] : std::string(), nullptr});
  }
  return out;
}

std::string join_indices(const std::vector<int>& v) {
  std::string s;
  for (int i : v) s += (s.empty() ? "" : ", ") + std::to_string(i);
  return s;
}

// The GPUs of one model (one fingerprint), tuned together into one table of the DB.
struct GpuGroup {
  Fingerprint fp;
  std::vector<GpuSlotSpec> gpus;
};

// A measured time for the table: "-" where no config (or not the DEFAULT) came out ok.
std::string ms_text(double v) {
  std::ostringstream t;
  if (v > 0)
    t << std::fixed << std::setprecision(4) << v;
  else
    t << "-";
  return t.str();
}

// The table's heading: the GPUs, the run's size and time, the compile pool's share.
void summary_heading(std::ostream& table, const TuneOptions& o, const Manifest& m, const Fingerprint& fp,
                     const std::vector<int>& gpu_indices, int starts, double elapsed_s,
                     const std::map<int, std::string>& dropped, std::size_t compile_jobs,
                     const std::vector<KeySummary>& summaries) {
  table << "ktune: " << m.kernel << " on ";
  if (gpu_indices.size() > 1) table << gpu_indices.size() << "x ";
  table << fp.gpu.name << " (";
  if (gpu_indices.size() > 1) table << "GPUs " << join_indices(gpu_indices) << ", ";
  table << "sm_" << fp.gpu.cc_major << fp.gpu.cc_minor << ", driver " << fp.gpu.driver_version << "), "
        << m.configs.size() << " configs, " << o.keys.size() << " keys, " << std::fixed << std::setprecision(1)
        << elapsed_s << " s, " << starts << " worker start(s)\n";
  for (const auto& [gpu, why] : dropped) table << "GPU " << gpu << " dropped: " << why << "; the others went on\n";
  std::size_t asked = 0;
  double compile_s = 0, wait_s = 0;
  for (const auto& ks : summaries) {
    asked += ks.compiled_asked;
    compile_s += ks.compile_s;
    wait_s += ks.compile_wait_s;
  }
  if (compile_s > 0)
    table << "compiled while tuning: " << asked << " configs in a pool of " << compile_jobs << " jobs, " << compile_s
          << " s of compiler wall time, " << wait_s << " s of GPU time waiting for a cubin\n";
  table << std::left << std::setw(28) << "key" << std::setw(44) << "best config" << std::right << std::setw(11)
        << "best ms" << std::setw(11) << "DEFAULT ms" << std::setw(9) << "speedup"
        << "  statuses\n";
}

// One key's row of the table and its entry in the JSON summary.
json key_row(std::ostream& table, const Manifest& m, const KeySummary& ks) {
  const std::string best = ks.best_id.empty() ? "-" : m.describe(m.configs[ks.best_index].values);
  std::ostringstream statuses;
  for (const auto& [status, n] : ks.counts) statuses << status << " " << n << "  ";
  std::ostringstream speedup;
  if (ks.best_ms > 0 && ks.default_ms > 0)
    speedup << std::fixed << std::setprecision(2) << ks.default_ms / ks.best_ms << "x";
  else
    speedup << "-";
  table << std::left << std::setw(28) << ks.key << std::setw(44) << best << std::right << std::setw(11)
        << ms_text(ks.best_ms) << std::setw(11) << ms_text(ks.default_ms) << std::setw(9) << speedup.str() << "  "
        << statuses.str() << "\n";
  json measured_on = json::object();
  for (const auto& [gpu, n] : ks.measured_on) measured_on[std::to_string(gpu)] = n;
  return {{"key", ks.key},
          {"best_id", ks.best_id},
          {"best_ms", ks.best_ms},
          {"default_ms", ks.default_ms},
          {"counts", ks.counts},
          {"measured_now", ks.measured_now},
          {"from_db", ks.from_db},
          {"measured_on", measured_on},
          {"seconds", ks.seconds},
          {"phases_s", ks.phases},
          {"samples_ms_total", ks.samples_ms_total},
          {"compile", {{"asked", ks.compiled_asked}, {"seconds", ks.compile_s}, {"wait_s", ks.compile_wait_s}}},
          {"failures", ks.failures}};
}

// What the prior bought: its configs' best here against the best found (a table line and
// the key's "prior" entry).
json prior_row(std::ostream& table, const Manifest& m, const Fingerprint& fp, Db& db, const KeySummary& ks) {
  double prior_best = -1;
  for (std::size_t i = 0; i < ks.prior_used; ++i)
    if (auto known = db.find(fp, ks.key, m.configs[ks.prior.configs[i]].id);
        known && known->status == Status::Ok && !known->abandoned && (prior_best < 0 || known->median_ms < prior_best))
      prior_best = known->median_ms;
  table << "  prior for " << ks.key << ": " << ks.prior_used << " configs of " << ks.prior.from
        << " measured first; their best here " << ms_text(prior_best);
  if (prior_best > 0 && ks.best_ms > 0)
    table << " ms, " << std::setprecision(2) << prior_best / ks.best_ms << "x the best found";
  table << std::setprecision(1) << "\n";
  return {{"from", ks.prior.from},
          {"measured_first", ks.prior_used},
          {"best_ms", prior_best},
          {"holds_the_best", prior_best > 0 && prior_best <= ks.best_ms}};
}

// The table printed after tuning a GPU group, and its JSON summary.
json summarize(const TuneOptions& o, const Manifest& m, const Fingerprint& fp, const std::vector<int>& gpu_indices,
               int starts, double elapsed_s, const std::map<int, std::string>& dropped, std::size_t compile_jobs,
               Db& db, const std::vector<KeySummary>& summaries) {
  std::ostringstream table;
  summary_heading(table, o, m, fp, gpu_indices, starts, elapsed_s, dropped, compile_jobs, summaries);
  json dropped_json = json::object();
  for (const auto& [gpu, why] : dropped) dropped_json[std::to_string(gpu)] = why;
  json out = {{"kernel", m.kernel},
              {"tuned", true},
              {"gpu", fp.gpu.to_json()},
              {"gpus", gpu_indices},
              {"dropped_gpus", dropped_json},
              {"worker_starts", starts},
              {"build", m.on_demand ? "on-demand" : "eager"},
              {"strategy", o.strategy},
              {"fingerprint", fp.digest()},
              {"db", db.path().string()},
              {"keys", json::array()}};
  std::size_t failures = 0;
  for (const auto& ks : summaries) {
    out["keys"].push_back(key_row(table, m, ks));
    if (ks.prior_used > 0) out["keys"].back()["prior"] = prior_row(table, m, fp, db, ks);
    failures += ks.failures.size();
  }
  if (failures > 0) {
    // The first few by their values, as a person reads a config; all of them in the summary.
    constexpr std::size_t kShown = 5;
    std::size_t shown = 0;
    for (const auto& ks : summaries)
      for (const auto& f : ks.failures)
        if (shown++ < kShown)
          table << "  " << f["status"].get<std::string>() << " " << terminal_text(f["config"].get<std::string>(), 120)
                << " at " << ks.key << ": " << terminal_text(f["reason"].get<std::string>(), 160) << "\n";
    table << failures << " measurements were not ok"
          << (failures > kShown ? " (the first " + std::to_string(kShown) + " above)" : std::string())
          << "; each one's status and reason: \"failures\" in "
          << (o.summary_out.empty() ? std::string("the summary (--summary-out)") : o.summary_out) << "\n";
  }
  std::cout << table.str() << "DB: " << db.path().string() << "\n";
  return out;
}

// What every key's search on one group of GPUs shares.
struct GroupRun {
  const TuneOptions& o;
  const Manifest& m;
  GpuPool& pool;
  const Fingerprint& fp;
  Db& db;
  CompilePool& compiles;
  Progress& progress;
  Clock::time_point tune_start;
  fs::path kernel_dir;
  std::size_t default_index;
  std::vector<std::string> names;
  std::size_t ahead_limit;  // proposals in flight at most
  ProgressState shown;      // compiled and measured count over all keys
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - tune_start).count(); }
};

// The worker's request to measure one compiled config.
json measure_request(const GroupRun& g, const Key& key, const ManifestConfig& c, double best_ms) {
  MeasureRequest r;
  r.key = key;
  r.entry = g.m.entry;
  r.config_id = c.id;
  r.names = g.names;
  r.values = c.values;
  r.cubin = (g.kernel_dir / c.cubin()).string();
  r.rule = g.o.rule;
  r.warmup = g.o.warmup;
  r.best_ms = best_ms;
  return r.to_json();
}

// A measurement as the worker's outcome gives it: its reply, a timeout or a crash.
Measurement measurement_of(const GroupRun& g, const std::string& key, const WorkerProcess::Result& r, double limit_s,
                           KeySummary& ks) {
  Measurement result;
  if (r.outcome == WorkerProcess::Outcome::Reply && r.reply.contains("fatal")) {
    throw Error(g.m.kernel + " [" + key + "]: " + terminal_text(r.reply["fatal"].get<std::string>(), 400));
  } else if (r.outcome == WorkerProcess::Outcome::Reply) {
    try {
      result = Measurement::from_json(r.reply);
      if (r.reply.contains("phases"))
        for (const auto& [phase, s] : r.reply["phases"].items())
          if (s.is_number()) ks.phases[phase] += s.get<double>();
    } catch (const Error& e) {
      result = Measurement{};
      result.status = Status::Crashed;
      result.message = std::string("the worker's reply was malformed: ") + e.what();
    }
    for (double ms : result.samples_ms) ks.samples_ms_total += ms;
  } else if (r.outcome == WorkerProcess::Outcome::TimedOut) {
    result.status = Status::TimedOut;
    result.message = r.detail;
    result.seconds = limit_s;
  } else {
    result.status = Status::Crashed;
    result.message = "the worker died: " + r.detail;
  }
  return result;
}

// One key's search: proposals compiled as compile slots free, each cubin measured as soon as
// a GPU is free, every result told to the strategy.
class KeySearch {
 public:
  KeySearch(GroupRun& g, const Key& key, KeySummary ks, std::unique_ptr<Strategy> strategy)
      : g_(g),
        key_(key),
        ks_(std::move(ks)),
        strategy_(std::move(strategy)),
        start_(Clock::now()),
        busy_before_(g.compiles.busy_seconds()) {}

  KeySummary run() {
    for (;;) {
      propose_into_free_slots();
      while (!ready_.empty() && g_.pool.idle() > 0 && !out_of_time()) {
        const std::size_t index = ready_.front();
        ready_.pop_front();
        start(index);
      }
      if (out_of_time()) ready_.clear();  // compiled, never measured: the budget is spent
      if (compiling_ == 0 && ready_.empty() && g_.pool.in_flight() == 0) {
        if (search_over_) break;
        continue;  // everything in flight was answered without a GPU: propose more
      }
      wait_for_a_cubin_or_a_measurement();
    }
    ks_.compile_s = g_.compiles.busy_seconds() - busy_before_;
    ks_.seconds = seconds();
    return ks_;
  }

 private:
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  bool out_of_time() const { return g_.o.budget.seconds && seconds() >= *g_.o.budget.seconds; }

  // Keep every compile slot busy while the search has proposals, but run no further ahead
  // of the results than the slots and GPUs need. A config the DB knows is answered at once.
  void propose_into_free_slots() {
    while (!search_over_ && g_.compiles.free_slots() > 0 &&
           compiling_ + ready_.size() + g_.pool.in_flight() < g_.ahead_limit) {
      auto index = next_proposal();
      if (!index) {
        search_over_ = true;
        break;
      }
      const ManifestConfig c = g_.m.configs[*index];
      if (std::optional<Measurement> known = g_.o.retune ? std::nullopt : g_.db.find(g_.fp, ks_.key, c.id)) {
        ++ks_.from_db;
        finish(*index, *known, false);
        continue;
      }
      ++compiling_;
      g_.compiles.submit(*index, c);
      g_.shown.compiling_what = g_.m.describe(c.values);
    }
  }

  // One more proposal, within the budget; nullopt when the search is over. (Strategies
  // propose the DEFAULT first: built by the build, it is measured first and sets the pace.)
  std::optional<std::size_t> next_proposal() {
    const TuneOptions& o = g_.o;
    if (strategy_->done() || out_of_time()) return std::nullopt;
    if (o.budget.evaluations && proposed_ >= *o.budget.evaluations) return std::nullopt;
    for (;;) {
      auto one = strategy_->propose(1);
      if (one.empty()) return std::nullopt;
      // A shard measures its share of an exhaustive search, and the DEFAULT that sets the pace.
      if (o.shard && one[0] != g_.default_index && one[0] % o.shard->count != o.shard->index) continue;
      ++proposed_;
      return one[0];
    }
  }

  // A compiled config: its compile failure answered at once, else sent to a GPU.
  void start(std::size_t index) {
    const ManifestConfig c = g_.m.configs[index];
    CompileRecord record;
    Measurement failed;
    failed.status = Status::CompileFailed;
    try {
      record = CompileRecord::read(g_.kernel_dir / c.record());
    } catch (const Error& e) {
      // Missing (the compile could not run) or damaged: not a compile error of the config's own.
      failed.message = std::string("no usable compile record: ") + e.what();
      return finish(index, failed, false);
    }
    if (record.status != "ok") {
      const std::string why =
          record.signal.empty() ? first_error_line(record.log) : "the compiler died of " + record.signal;
      failed.message = "did not compile" + (why.empty() ? std::string() : ": " + why) + "; log: " + record.log;
      return finish(index, failed, false);
    }
    // The DEFAULT config sets the pace: others get a generous multiple of its time.
    const double limit_s = default_seconds_ < 0 ? g_.o.first_timeout_s : g_.o.timeout_floor_s + 10.0 * default_seconds_;
    limits_[index] = limit_s;
    g_.pool.submit(index, measure_request(g_, key_, c, ks_.best_ms),
                   std::chrono::milliseconds(static_cast<int64_t>(limit_s * 1000)));
  }

  // Wait for whichever comes first: a cubin, or a measurement. Time the GPUs stand idle with
  // nothing compiled to measure is what the pipeline did not hide.
  void wait_for_a_cubin_or_a_measurement() {
    const bool gpus_wait = g_.pool.in_flight() == 0 && ready_.empty();
    const auto wait_start = Clock::now();
    bool progressed = false;
    while (auto done =
               g_.compiles.wait_for(std::chrono::milliseconds(progressed || g_.pool.in_flight() > 0 ? 0 : 20))) {
      --compiling_;
      ks_.compiled_asked += done->compiled;
      g_.shown.compiled += done->compiled;
      ready_.push_back(done->tag);
      progressed = true;
    }
    g_.shown.compiling = compiling_;
    if (progressed) g_.progress.update(g_.shown, g_.elapsed());
    if (gpus_wait) ks_.compile_wait_s += std::chrono::duration<double>(Clock::now() - wait_start).count();
    if (g_.pool.in_flight() > 0)
      if (auto f = g_.pool.wait_for(std::chrono::milliseconds(progressed ? 0 : 2))) arrived(std::move(*f));
  }

  // A measurement back from a GPU.
  void arrived(GpuPool::Finished f) {
    const std::size_t index = f.tag;
    for (const auto& [phase, s] : f.phases) ks_.phases[phase] += s;
    ++ks_.measured_on[f.gpu];
    Measurement result = measurement_of(g_, ks_.key, f.result, limits_[index], ks_);
    limits_.erase(index);
    // When: the order and pace of the search, for `ktune report`'s curves.
    result.at = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    finish(index, result, true);
  }

  // A config's result, its bookkeeping and the strategy told; `measured`: new, to record.
  void finish(std::size_t index, const Measurement& result, bool measured) {
    const ManifestConfig c = g_.m.configs[index];
    ++evaluations_;
    if (measured) {
      g_.db.record(g_.fp, ks_.key, c.id, values_json(g_.m, c), result);
      ++ks_.measured_now;
    }
    if (index == g_.default_index) {
      // A DEFAULT that hung sets no pace: the others keep the first config's limit.
      if (result.status != Status::TimedOut) default_seconds_ = result.seconds;
      if (result.status == Status::Ok) ks_.default_ms = result.median_ms;
    }
    ++ks_.counts[to_string(result.status)];
    if (result.status != Status::Ok)
      ks_.failures.push_back({{"id", c.id},
                              {"config", g_.m.describe(c.values)},
                              {"status", to_string(result.status)},
                              {"reason", result.message}});
    if (result.status == Status::Ok && !result.abandoned && (ks_.best_ms < 0 || result.median_ms < ks_.best_ms)) {
      ks_.best_ms = result.median_ms;
      ks_.best_id = c.id;
      ks_.best_index = index;
      g_.shown.best_ms = ks_.best_ms;
      g_.shown.best = g_.m.describe(c.values);
    }
    strategy_->observe({index, result.status, result.median_ms});
    g_.shown.done = evaluations_;
    g_.shown.measured += measured;
    g_.progress.update(g_.shown, g_.elapsed());
  }

  GroupRun& g_;
  const Key& key_;
  KeySummary ks_;
  std::unique_ptr<Strategy> strategy_;
  Clock::time_point start_;
  double busy_before_;
  double default_seconds_ = -1;
  std::size_t evaluations_ = 0, proposed_ = 0;
  std::map<std::size_t, double> limits_;  // of the configs in flight
  std::deque<std::size_t> ready_;         // compiled, waiting for a GPU
  std::size_t compiling_ = 0;             // of this key, in the compile pool
  bool search_over_ = false;              // the strategy, the budget or the time has no more proposals
};

// Tunes every key on one group's GPUs; prints its summary table; returns its JSON summary.
json tune_group(const TuneOptions& o, const Manifest& m, GpuPool& pool, const Fingerprint& fp,
                const std::vector<int>& gpu_indices, int earlier_starts, Clock::time_point tune_start) {
  const fs::path kernel_dir = fs::path(o.manifest).parent_path();
  Db db(fs::path(o.db_dir) / (fp.gpu.model_slug() + ".json"), m.kernel);
  if (!db.warning().empty()) std::cerr << "ktune: warning: " << terminal_text(db.warning(), 400) << "\n";
  const SearchSpace search_space(m.spec.parameters, m.configs.enumeration());
  // Every config goes through the compile pool: one already built (an eager space, or an
  // earlier run) comes back at once; another is compiled, a new proposal taking each freed
  // slot, and measured as soon as its cubin exists.
  CompilePool compiles(m, kernel_dir, o.compile_jobs);
  Progress progress(m.kernel, o.keys.size());
  if (!o.build_tunes.empty()) progress.set_build(read_build_tunes(o.build_tunes, kernel_dir));
  GroupRun g{o,
             m,
             pool,
             fp,
             db,
             compiles,
             progress,
             tune_start,
             kernel_dir,
             m.default_index(),
             {},
             // Proposals run ahead of results only as far as the compile slots and the GPUs
             // need, and not so far that a small budget is proposed blind.
             proposals_ahead(compiles.jobs() + 2 * gpu_indices.size(), o.budget.evaluations),
             {}};
  for (const auto& p : m.spec.parameters) g.names.push_back(p.name);

  std::vector<fs::path> prior_dirs = {o.db_dir};
  for (const auto& d : o.prior_dirs) prior_dirs.emplace_back(d);
  // The other DB files, read once; the last slot is this GPU's own DB, taken from memory
  // for each key, so that a key starts from the keys tuned before it here.
  std::vector<DbTables> prior_docs = prior_documents(m, prior_dirs, db.path());
  prior_docs.emplace_back();
  std::vector<KeySummary> summaries;
  for (const auto& key : o.keys) {
    KeySummary ks;
    ks.key = key_id(key);
    const std::size_t in_shard =
        o.shard ? (m.configs.size() + o.shard->count - 1 - o.shard->index) / o.shard->count + 1 : m.configs.size();
    const std::size_t planned = std::min({m.configs.size(), in_shard, o.budget.evaluations.value_or(m.configs.size())});
    prior_docs.back() = DbTables::of(db.document());
    ks.prior = tune_prior(m, prior_docs, fp, key);
    if (o.strategy != "exhaustive") ks.prior_used = std::min(prior_count(planned), ks.prior.configs.size());
    auto strategy =
        make_strategy(o.strategy, {search_space, g.default_index, o.seed, o.budget.evaluations,
                                   o.budget.evaluations.has_value() || o.budget.seconds.has_value(), ks.prior.configs});
    progress.start_key(summaries.size(), ks.key, planned, g.elapsed(), o.budget.seconds);
    g.shown.done = 0;
    g.shown.best_ms = -1;
    g.shown.best.clear();
    summaries.push_back(KeySearch(g, key, std::move(ks), std::move(strategy)).run());
  }
  progress.finish(g.elapsed());

  return summarize(o, m, fp, gpu_indices, earlier_starts + pool.starts(), g.elapsed(), pool.dropped(), compiles.jobs(),
                   db, summaries);
}

// KTUNE_TUNE=AUTO without a usable GPU: says so, and the summary says why nothing was tuned.
int not_tuning(const TuneOptions& o, const Manifest& m, const std::string& shown, const std::string& why) {
  std::cout << "ktune: " << m.kernel << ": not tuning: " << shown << "\n";
  if (!o.summary_out.empty())
    write_file_atomic(o.summary_out, json{{"kernel", m.kernel}, {"tuned", false}, {"why", why}}.dump(2) + "\n");
  return 0;
}

void check_options(const TuneOptions& o, const Manifest& m) {
  if (o.keys.empty()) throw Error(m.kernel + ": no KEYS to tune for; give at least one, e.g. KEYS \"N=4096\"");
  if (o.shard && (o.shard->count == 0 || o.shard->index >= o.shard->count))
    throw Error("--shard " + std::to_string(o.shard->index) + "/" + std::to_string(o.shard->count) +
                ": give I/N with 0 <= I < N, e.g. --shard 0/4");
  if (o.shard && o.strategy != "exhaustive")
    throw Error("--shard splits an exhaustive search (configs I, I+N, I+2N, ...), not the " + o.strategy +
                " strategy, whose proposals depend on every result; split a search by key instead");
}

// The started GPUs grouped by model: one fingerprint, one table.
std::vector<GpuGroup> group_by_model(const std::map<int, json>& started, const std::vector<GpuSlotSpec>& chosen,
                                     const Fingerprint& base) {
  std::vector<GpuGroup> groups;
  for (const auto& [gpu, line] : started) {
    Fingerprint fp = base;
    fp.gpu = ReadyReply::from_json(line).gpu;
    GpuSlotSpec spec;
    for (const auto& c : chosen)
      if (c.index == gpu) spec = c;
    auto same =
        std::find_if(groups.begin(), groups.end(), [&](const GpuGroup& g) { return g.fp.digest() == fp.digest(); });
    if (same == groups.end())
      groups.push_back({fp, {spec}});
    else
      same->gpus.push_back(spec);
  }
  return groups;
}

// A GPU that cannot run this build's cubins (compile.arch) is not measured: every config
// would fail to load, and its table could never be chosen for it. Returns why the last
// group dropped was.
std::string drop_unrunnable(std::vector<GpuGroup>& groups, const Manifest& m) {
  const auto arch = parse_cuda_arch(m.compile.arch);
  std::string cannot;
  std::erase_if(groups, [&](const GpuGroup& g) {
    if (arch && cubin_runs_on(*arch, g.fp.gpu.cc_major, g.fp.gpu.cc_minor)) return false;
    const std::string cc = std::to_string(g.fp.gpu.cc_major) + std::to_string(g.fp.gpu.cc_minor);
    cannot = g.fp.gpu.name + " (sm_" + cc + ") cannot run cubins for sm_" + m.compile.arch +
             ", the architecture this build compiles and tunes; list " + cc +
             " in CMAKE_CUDA_ARCHITECTURES (or KTUNE_CUDA_ARCH) to tune on it";
    std::cerr << "ktune: warning: " << m.kernel << ": " << terminal_text(cannot, 400) << "\n";
    return true;
  });
  return cannot;
}

std::vector<int> indices_of(const GpuGroup& g) {
  std::vector<int> indices;
  for (const auto& s : g.gpus) indices.push_back(s.index);
  return indices;
}

// Each group of GPUs tunes into its own table; one group's summary is the run's summary.
json tune_groups(const TuneOptions& o, const Manifest& m, GpuPool& all, std::vector<GpuGroup>& groups,
                 int earlier_starts, Clock::time_point tune_start) {
  if (groups.size() == 1) return tune_group(o, m, all, groups[0].fp, indices_of(groups[0]), earlier_starts, tune_start);
  // Different models (or drivers) never share a table: each group tunes on its own, one
  // after the other, into its own fingerprint's table.
  std::cout << "ktune: " << m.kernel << ": the GPUs differ; each kind tunes into its own table:";
  for (const auto& g : groups)
    std::cout << " [" << terminal_text(g.fp.gpu.name, 80) << ": GPU " << join_indices(indices_of(g)) << "]";
  std::cout << "\n";
  json summary = {{"kernel", m.kernel}, {"tuned", true}, {"tables", json::array()}};
  for (auto& g : groups) {
    for (auto& s : g.gpus) s.worker = all.worker(s.index);  // started already: goes on measuring
    GpuPool pool(o.worker_command, o.worker_log, g.gpus);
    summary["tables"].push_back(tune_group(o, m, pool, g.fp, indices_of(g), earlier_starts, tune_start));
    earlier_starts = 0;
  }
  return summary;
}

}  // namespace

int tune(const TuneOptions& o) {
  const auto tune_start = Clock::now();
  const Manifest m = Manifest::from_json(read_json_file(o.manifest), o.manifest);
  check_options(o, m);

  // The first worker, unpinned, says whether there is a GPU and how many the tuner sees.
  auto first = std::make_shared<MeasuringWorker>(o.worker_command, o.worker_log, "");
  const ReadyReply ready = ReadyReply::from_json(first->ensure());
  if (!ready.ready) {
    if (o.require_gpu) throw Error(m.kernel + ": KTUNE_TUNE=ON but " + ready.why);
    return not_tuning(o, m, terminal_text(ready.why, 400) + " (KTUNE_TUNE=AUTO); the DB keeps what it has", ready.why);
  }
  const int visible = ready.visible_gpus;
  std::vector<GpuSlotSpec> chosen = choose_gpus(o.gpus, visible);
  int earlier_starts = 0;
  if (chosen.size() == 1 && chosen[0].pin.empty()) {
    chosen[0].worker = first;  // the one GPU: the first worker goes on measuring
  } else {
    earlier_starts = first->starts();
    first.reset();
  }

  Fingerprint base;
  base.kernel_hash = kernel_hash(o.manifest);
  base.nvcc_version = nvcc_version(m.compile.nvcc);

  // Every chosen GPU's worker, started at once; then the GPUs grouped by model.
  GpuPool all(o.worker_command, o.worker_log, chosen);
  const std::map<int, json> started = all.start();
  for (const auto& [gpu, why] : all.dropped())
    std::cerr << "ktune: warning: " << m.kernel << ": GPU " << gpu << " left out: " << terminal_text(why, 400) << "\n";
  if (started.empty()) throw Error(m.kernel + ": no GPU could be used; see " + o.worker_log);
  std::vector<GpuGroup> groups = group_by_model(started, chosen, base);
  const std::string cannot = drop_unrunnable(groups, m);
  if (groups.empty()) {
    if (o.require_gpu) throw Error(m.kernel + ": KTUNE_TUNE=ON but " + cannot);
    return not_tuning(o, m, "no GPU here runs this build's cubins; the DB keeps what it has", cannot);
  }
  const json summary = tune_groups(o, m, all, groups, earlier_starts, tune_start);
  if (!o.summary_out.empty()) write_file_atomic(o.summary_out, summary.dump(2) + "\n");
  return 0;
}

}  // namespace ktune
