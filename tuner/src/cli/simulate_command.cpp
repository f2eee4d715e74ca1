// `ktune simulate --cache FILE|--db FILE|--t4 FILE [--strategy NAME] --budget N|P% --seed S [--trace OUT.jsonl]
// [--prior FILE]... [--json]`: runs a search strategy on a recorded space (a Kernel Tuner cache, or one key
// of a ktune DB with --db/--key) without a GPU, and says how close it came to the
// recorded optimum. The trace has one JSON line per evaluation (docs/search.md).
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "ktune/db.hpp"
#include "ktune/error.hpp"
#include "ktune/interop.hpp"
#include "ktune/key.hpp"
#include "ktune/manifest.hpp"
#include "ktune/prior.hpp"
#include "ktune/replay.hpp"
#include "ktune/simulate.hpp"
#include "ktune/strategy.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {
namespace {

struct SimulateOptions {
  std::string cache;
  std::string db;
  std::string t4;
  std::string key;
  std::string strategy = "default";
  std::string budget;
  uint64_t seed = 0;
  std::string trace;
  std::vector<std::string> prior;  // recordings of the same kernel on other GPUs
  bool json = false;
};

// A prior recording: a ktune DB (a JSON object with "fingerprints"; the key of --key, else
// its only key) or a Kernel Tuner cache.
ReplaySpace read_prior(const std::string& file, const std::string& key) {
  if (!file.ends_with(".gz")) {
    std::ifstream in(file);
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_object() && doc.contains("fingerprints")) return ReplaySpace::from_db(file, key);
  }
  return ReplaySpace::from_cache_file(file);
}

// The priors' rankings on `space`, taken in turn (each one's best, then each one's second,
// ...), each config once.
std::vector<std::size_t> merged_prior(const std::vector<std::string>& files, const std::string& key,
                                      const ReplaySpace& space) {
  std::vector<std::vector<std::size_t>> rankings;
  for (const std::string& f : files) rankings.push_back(prior_from(read_prior(f, key), space));
  std::vector<std::size_t> out;
  std::vector<bool> taken(space.size(), false);
  for (std::size_t at = 0;; ++at) {
    bool more = false;
    for (const auto& r : rankings)
      if (at < r.size()) {
        more = true;
        if (!taken[r[at]]) taken[r[at]] = true, out.push_back(r[at]);
      }
    if (!more) return out;
  }
}

void run_simulate(const SimulateOptions& o) {
  if (!o.cache.empty() + !o.db.empty() + !o.t4.empty() != 1)
    throw Error(
        "simulate: give exactly one recording: --cache FILE (Kernel Tuner), --db FILE "
        "or --t4 FILE");
  if (!o.key.empty() && o.db.empty()) throw Error("simulate: --key selects a key of a ktune DB; it needs --db FILE");
  const std::string key = o.key.empty() ? "" : key_id(parse_key(o.key));
  const ReplaySpace space = !o.t4.empty()     ? t4_to_replay(read_t4_file(o.t4), o.t4)
                            : o.cache.empty() ? ReplaySpace::from_db(o.db, key)
                                              : ReplaySpace::from_cache_file(o.cache);
  const std::size_t budget = parse_budget(o.budget, space.size(), "--budget");

  std::ostringstream lines;
  JsonlTrace trace(lines);
  const std::vector<std::size_t> prior = merged_prior(o.prior, key, space);
  const std::size_t prior_first = prior.empty() ? 0 : std::min(prior.size(), prior_count(budget));
  const SimulationResult r =
      simulate(space, o.strategy, budget, o.seed, o.trace.empty() ? nullptr : &trace, 0, 1, prior);
  if (!o.trace.empty()) write_file_atomic(o.trace, lines.str());
  // Entries the replay left out (a wrong id, a damaged measurement), said once it is done: a
  // failure above is one line of its own.
  if (!o.db.empty())
    if (const std::string w = Db::load_document(o.db).warning; !w.empty())
      std::cerr << "ktune simulate: warning: " << terminal_text(w, 400) << "\n";

  std::size_t failed = 0;
  for (const Evaluation& e : r.evaluations) failed += e.status != Status::Ok;
  const std::size_t timed = space.timed();
  std::optional<std::pair<std::size_t, double>> optimum;
  if (timed) optimum = space.best();
  std::optional<double> ratio;
  if (r.best_ms && optimum && optimum->second > 0) ratio = *r.best_ms / optimum->second;

  if (o.json) {
    using nlohmann::ordered_json;
    auto opt = [](const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(); };
    ordered_json doc = {{"file", space.origin()},
                        {"kernel", space.kernel()},
                        {"device", space.device()},
                        {"configs", space.size()},
                        {"timed_configs", timed},
                        {"strategy", r.strategy},
                        {"budget", budget},
                        {"seed", o.seed},
                        {"evaluations", r.evaluations.size()},
                        {"failed", failed},
                        {"best_ms", opt(r.best_ms)},
                        {"best_config", r.best_index ? space.config(*r.best_index) : ordered_json()},
                        {"optimum_ms", optimum ? ordered_json(optimum->second) : ordered_json()},
                        {"optimum_config", optimum ? space.config(optimum->first) : ordered_json()},
                        {"ratio", opt(ratio)}};
    if (!o.prior.empty())
      doc["prior"] = {{"files", o.prior}, {"configs", prior.size()}, {"measured_first", prior_first}};
    // Names read from the file need not be UTF-8; dump() would throw on them.
    std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::cout << std::setprecision(4) << (space.kernel().empty() ? "kernel" : terminal_text(space.kernel(), 80))
            << (space.device().empty() ? "" : " on " + terminal_text(space.device(), 80)) << ": " << space.size()
            << " configs; " << r.strategy << ", seed " << o.seed << ": " << r.evaluations.size() << " evaluations ("
            << failed << " failed), best ";
  if (r.best_ms)
    std::cout << *r.best_ms << " ms";
  else
    std::cout << "none timed";
  std::cout << " vs recorded optimum ";
  if (optimum)
    std::cout << optimum->second << " ms";
  else
    std::cout << "none (nothing timed)";
  if (ratio) std::cout << " (ratio " << std::fixed << std::setprecision(3) << *ratio << ")";
  if (!o.prior.empty())
    std::cout << "; prior: " << prior.size() << " configs of this space from " << o.prior.size() << " file(s), "
              << prior_first << " measured first";
  std::cout << "\n";
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto o = std::make_shared<SimulateOptions>();
  CLI::App* sub =
      app.add_subcommand("simulate", "Run a search strategy on a recorded space (Kernel Tuner cache, ktune DB or T4)");
  sub->add_option("--cache", o->cache, "Kernel Tuner cache file (.json or .json.gz)");
  sub->add_option("--db", o->db, "or a ktune DB file (<kernel DB dir>/<GPU>.json)");
  sub->add_option("--t4", o->t4, "or T4 results (.json or .json.gz)");
  sub->add_option(
      "--key", o->key,
      "with --db: the key, e.g. \"M=64 N=64\" (names in any order, spaces or commas; default: its only key)");
  std::string names;
  for (const std::string& n : strategy_names()) names += (names.empty() ? "" : ", ") + n;
  sub->add_option("--strategy", o->strategy, "search strategy: default (" + default_strategy_name() + " now), " + names)
      ->check(strategy_name());
  sub->add_option("--budget", o->budget, "evaluations (100) or a share of the space (2%)")
      ->check(budget_value())
      ->required();
  sub->add_option("--seed", o->seed, "random seed: same seed, same evaluations")->required()->check(unsigned_integer());
  sub->add_option("--trace", o->trace, "write one JSON line per evaluation to this file");
  sub->add_option("--prior", o->prior,
                  "a recording of the same kernel on another GPU (Kernel Tuner cache or ktune DB, with --key); "
                  "its fastest configs are measured first (repeatable)")
      ->check(CLI::ExistingFile);
  sub->add_flag("--json", o->json, "print the summary as JSON");
  sub->callback([o] { run_simulate(*o); });
}

}  // namespace ktune::cli
