#include "ktune/tuner.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ktune/compile_record.hpp"
#include "ktune/db.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/manifest.hpp"
#include "ktune/progress.hpp"
#include "ktune/worker_process.hpp"

namespace ktune {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

std::string nvcc_version(const std::string& nvcc) {
  std::string command = "'" + nvcc + "' --version 2>/dev/null";
  std::FILE* p = popen(command.c_str(), "r");
  if (!p) return "unknown";
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  auto v = out.rfind(", V");
  if (v == std::string::npos) return "unknown";
  auto end = out.find_first_of(" \n", v + 3);
  return out.substr(v + 3, end - v - 3);
}

std::string describe_values(const Manifest& m, const ManifestConfig& c) {
  std::string s;
  for (std::size_t k = 0; k < c.values.size(); ++k)
    s += (k ? " " : "") + m.spec.parameters[k].name + "=" + std::to_string(c.values[k]);
  return s;
}

json values_json(const Manifest& m, const ManifestConfig& c) {
  json v = json::object();
  for (std::size_t k = 0; k < c.values.size(); ++k) v[m.spec.parameters[k].name] = c.values[k];
  return v;
}

// The worker, restarted after every crash or timeout.
class Workers {
 public:
  explicit Workers(const TuneOptions& o) : o_(o) {}

  // Starts a worker if none runs; returns its ready line.
  json ensure() {
    if (worker_ && worker_->alive() && !worker_->exited()) return ready_;
    prepared_ = nullptr;
    worker_ = std::make_unique<WorkerProcess>(o_.worker_command, o_.worker_log);
    auto r = worker_->wait_ready(std::chrono::seconds(60));
    if (r.outcome != WorkerProcess::Outcome::Reply)
      throw Error("the measuring worker did not start (" + r.detail + "); see " + o_.worker_log);
    ready_ = r.reply;
    ++starts_;
    return ready_;
  }
  // A worker found dead before the call is replaced first, so that a death between calls
  // is not blamed on the next config. A new worker, or a new key, first builds the key's
  // harness (inputs, references): a harness that fails or dies there is an error of the
  // harness, reported once, not a crash of every config.
  WorkerProcess::Result call(const json& request, std::chrono::milliseconds timeout,
                             std::map<std::string, double>& phases) {
    ensure();
    if (prepared_ != request.at("key")) {
      auto r = worker_->call({{"op", "prepare"}, {"key", request.at("key")}}, kPrepareTimeout);
      if (r.outcome != WorkerProcess::Outcome::Reply || !r.reply.value("prepared", false)) {
        std::string why = r.outcome == WorkerProcess::Outcome::Reply
                              ? r.reply.value("fatal", r.reply.dump())
                              : r.detail;
        worker_.reset();
        throw Error("the harness failed on key " + key_id(request.at("key").get<std::map<std::string, int64_t>>()) +
                    ": " + why + "; see " + o_.worker_log);
      }
      if (r.reply.contains("phases"))
        for (const auto& [phase, s] : r.reply["phases"].items())
          if (s.is_number()) phases[phase] += s.get<double>();
      prepared_ = request.at("key");
    }
    return worker_->call(request, timeout);
  }
  // After a sticky error the worker exits on its own; wait for it before the next config.
  void retire() {
    worker_.reset();
    prepared_ = nullptr;
  }
  int starts() const { return starts_; }

 private:
  const TuneOptions& o_;
  std::unique_ptr<WorkerProcess> worker_;
  json ready_;
  json prepared_;  // the key whose harness the worker holds
  int starts_ = 0;
  // Host references of big problems can take minutes on one core.
  static constexpr std::chrono::milliseconds kPrepareTimeout{std::chrono::minutes(30)};
};

struct KeySummary {
  std::string key;
  std::map<std::string, int> counts;  // by status
  double best_ms = -1;
  std::string best_id;
  double default_ms = -1;
  std::size_t measured_now = 0, from_db = 0;
  std::map<std::string, double> phases;  // seconds the workers spent, by phase
  double samples_ms_total = 0;           // sum of every timed sample: the kernel's own time
  double seconds = 0;                    // wall time of this key
};

}  // namespace

int tune(const TuneOptions& o) {
  const auto tune_start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - tune_start).count(); };
  const Manifest m = Manifest::from_json(read_json_file(o.manifest), o.manifest);
  const fs::path kernel_dir = fs::path(o.manifest).parent_path();
  if (o.keys.empty()) throw Error(m.kernel + ": no KEYS to tune for; give at least one, e.g. KEYS \"N=4096\"");

  Workers workers(o);
  json ready = workers.ensure();
  if (!ready.value("ready", false)) {
    std::string why = ready.value("why", std::string("no GPU"));
    if (o.require_gpu) throw Error(m.kernel + ": KTUNE_TUNE=ON but " + why);
    std::cout << "ktune: " << m.kernel << ": not tuning: " << why
              << " (KTUNE_TUNE=AUTO); the DB keeps what it has\n";
    if (!o.summary_out.empty())
      write_file_atomic(o.summary_out,
                        json{{"kernel", m.kernel}, {"tuned", false}, {"why", why}}.dump(2) + "\n");
    return 0;
  }
  Fingerprint fp;
  fp.gpu = GpuIdentity::from_json(ready.at("gpu"));
  fp.kernel_hash = kernel_hash(o.manifest);
  fp.nvcc_version = nvcc_version(m.compile.nvcc);
  Db db(fs::path(o.db_dir) / (fp.gpu.model_slug() + ".json"), m.kernel);
  if (!db.warning().empty()) std::cerr << "ktune: warning: " << db.warning() << "\n";

  std::size_t default_index = 0;
  for (std::size_t i = 0; i < m.configs.size(); ++i)
    if (m.configs[i].id == m.default_id) default_index = i;
  std::vector<std::string> names;
  for (const auto& p : m.spec.parameters) names.push_back(p.name);

  std::vector<int64_t> rows;
  for (const auto& c : m.configs) rows.insert(rows.end(), c.values.begin(), c.values.end());
  const SearchSpace search_space(m.spec.parameters, rows);

  std::vector<KeySummary> summaries;
  for (const auto& key : o.keys) {
    KeySummary ks;
    ks.key = key_id(key);
    auto strategy = make_strategy(o.strategy, {search_space, default_index, o.seed, o.budget.evaluations});
    Progress progress(m.kernel + " [" + ks.key + "]", m.configs.size());
    const auto key_start = Clock::now();
    double default_seconds = -1;
    std::size_t evaluations = 0;
    while (!strategy->done()) {
      if (o.budget.evaluations && evaluations >= *o.budget.evaluations) break;
      if (o.budget.seconds && std::chrono::duration<double>(Clock::now() - key_start).count() >= *o.budget.seconds) break;
      auto batch = strategy->propose(1);
      if (batch.empty()) break;
      const std::size_t index = batch[0];
      const ManifestConfig& c = m.configs[index];
      ++evaluations;

      std::optional<Measurement> known = o.retune ? std::nullopt : db.find(fp, ks.key, c.id);
      Measurement result;
      if (known) {
        result = *known;
        ++ks.from_db;
      } else {
        CompileRecord record;
        bool compiled = false;
        try {
          record = CompileRecord::from_json(read_json_file(kernel_dir / c.record()), c.record());
          compiled = record.status == "ok";
        } catch (const Error& e) {
          record.log = e.what();
        }
        if (!compiled) {
          result.status = Status::CompileFailed;
          result.message = "did not compile; log: " + record.log;
        } else {
          json request = {{"op", "measure"},
                          {"key", key},
                          {"entry", m.entry},
                          {"config", {{"id", c.id}, {"names", names}, {"values", c.values},
                                      {"cubin", (kernel_dir / c.cubin()).string()}}},
                          {"rule", {{"min_samples", o.rule.min_samples},
                                    {"max_samples", o.rule.max_samples},
                                    {"target_rel_ci", o.rule.target_rel_ci},
                                    {"max_seconds", o.rule.max_seconds},
                                    {"abandon_factor", o.rule.abandon_factor},
                                    {"warmup", o.warmup}}},
                          {"best_ms", ks.best_ms}};
          // The DEFAULT config sets the pace: others get a generous multiple of its time.
          const double limit_s =
              default_seconds < 0 ? 120.0 : o.timeout_floor_s + 10.0 * default_seconds;
          auto r = workers.call(request, std::chrono::milliseconds(static_cast<int64_t>(limit_s * 1000)), ks.phases);
          if (r.outcome == WorkerProcess::Outcome::Reply && r.reply.contains("fatal")) {
            throw Error(m.kernel + " [" + ks.key + "]: " + r.reply["fatal"].get<std::string>());
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
            if (result.status == Status::Crashed) workers.retire();
            for (double ms : result.samples_ms) ks.samples_ms_total += ms;
          } else if (r.outcome == WorkerProcess::Outcome::TimedOut) {
            result.status = Status::TimedOut;
            result.message = r.detail;
            result.seconds = limit_s;
          } else {
            result.status = Status::Crashed;
            result.message = "the worker died: " + r.detail;
          }
          db.record(fp, ks.key, c.id, values_json(m, c), result);
          ++ks.measured_now;
        }
      }
      if (index == default_index) {
        // A DEFAULT that hung sets no pace: the others keep the first config's limit.
        if (result.status != Status::TimedOut) default_seconds = result.seconds;
        if (result.status == Status::Ok) ks.default_ms = result.median_ms;
      }
      ++ks.counts[to_string(result.status)];
      if (result.status == Status::Ok && !result.abandoned && (ks.best_ms < 0 || result.median_ms < ks.best_ms)) {
        ks.best_ms = result.median_ms;
        ks.best_id = c.id;
      }
      strategy->observe({index, result.status, result.median_ms});
      progress.update(evaluations, ks.best_ms, ks.best_id, std::chrono::duration<double>(Clock::now() - key_start).count());
    }
    ks.seconds = std::chrono::duration<double>(Clock::now() - key_start).count();
    progress.finish(ks.seconds);
    summaries.push_back(ks);
  }

  // The summary table.
  std::ostringstream table;
  table << "ktune: " << m.kernel << " on " << fp.gpu.name << " (sm_" << fp.gpu.cc_major << fp.gpu.cc_minor
        << ", driver " << fp.gpu.driver_version << "), " << m.configs.size() << " configs, "
        << o.keys.size() << " keys, " << std::fixed << std::setprecision(1) << elapsed() << " s, "
        << workers.starts() << " worker start(s)\n";
  table << std::left << std::setw(28) << "key" << std::setw(44) << "best config" << std::right
        << std::setw(11) << "best ms" << std::setw(11) << "DEFAULT ms" << std::setw(9) << "speedup"
        << "  statuses\n";
  json out = {{"kernel", m.kernel}, {"tuned", true}, {"gpu", fp.gpu.to_json()},
              {"fingerprint", fp.digest()}, {"db", db.path().string()}, {"keys", json::array()}};
  for (const auto& ks : summaries) {
    std::string best = "-";
    for (const auto& c : m.configs)
      if (c.id == ks.best_id) best = describe_values(m, c);
    std::ostringstream statuses;
    for (const auto& [status, n] : ks.counts) statuses << status << " " << n << "  ";
    // "-" where no config (or not the DEFAULT) came out ok.
    auto ms = [](double v) {
      std::ostringstream t;
      if (v > 0) t << std::fixed << std::setprecision(4) << v; else t << "-";
      return t.str();
    };
    std::ostringstream speedup;
    if (ks.best_ms > 0 && ks.default_ms > 0)
      speedup << std::fixed << std::setprecision(2) << ks.default_ms / ks.best_ms << "x";
    else
      speedup << "-";
    table << std::left << std::setw(28) << ks.key << std::setw(44) << best << std::right
          << std::setw(11) << ms(ks.best_ms) << std::setw(11) << ms(ks.default_ms) << std::setw(9)
          << speedup.str() << "  " << statuses.str() << "\n";
    out["keys"].push_back({{"key", ks.key}, {"best_id", ks.best_id}, {"best_ms", ks.best_ms},
                           {"default_ms", ks.default_ms}, {"counts", ks.counts},
                           {"measured_now", ks.measured_now}, {"from_db", ks.from_db},
                           {"seconds", ks.seconds}, {"phases_s", ks.phases},
                           {"samples_ms_total", ks.samples_ms_total}});
  }
  std::cout << table.str() << "DB: " << db.path().string() << "\n";
  if (!o.summary_out.empty()) write_file_atomic(o.summary_out, out.dump(2) + "\n");
  return 0;
}

}  // namespace ktune
