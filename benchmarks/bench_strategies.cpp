// How well each search strategy does on recorded spaces, against uniform random search
// (issue: search strategies). For every Kernel Tuner cache in the data directories (by
// default the shared benchmark_hub recordings and this project's own, benchmarks/recordings/;
// --data, repeatable, names others), every
// strategy, seeds 0..S-1 and budgets of 0.5, 1, 2, 5 and 10 % of the space:
//
//   score(n) = (R(n) - B(n)) / (R(n) - optimum)
//
// R(n): the exact expected best of n uniform random draws without replacement; B(n): the
// strategy's mean best after n evaluations. 1 = always optimal, 0 = no better than random,
// negative = worse. A failed config counts as the slowest timed one (so a run that found
// nothing timed scores as the worst config). Each budget is its own run, so strategies that
// plan by their budget (random-refine, annealing, genetic, bayes) are judged as used.
// Last, leave one space out: for each space, the strategy with the best mean score on the
// others (what a default chosen without it would be), and its score on the space left out.
// --in-flight N scores them as the tuner runs them with N slots (16 compile jobs + 2 per
// GPU: 18): proposals run ahead of the results as far as proposals_ahead(N, budget) lets
// them, as the tuner's compile pool does; the default, 1, is one proposal at a time.
// --within P adds, under each strategy's scores, the share of seeds whose best is within P %
// of the optimum at each budget (the time-to-quality question: how often is a search close).
// --db DIR (repeatable) adds every key of every ktune DB file under DIR as a space of its
// own (ReplaySpace::from_db: the configs measured on that key, which is the whole space only
// where the tuner measured it whole); --budgets a,b,... replaces the budgets (percentages;
// small spaces need larger ones). After the table, the mean per kernel (a space family) and
// per budget over every space.
// --prior scores transfer instead: for each ordered pair of recordings of one kernel (the
// same parameters: other GPUs, or other keys of the same GPU), each strategy on the target
// with the other's ranking as its prior (ktune/prior.hpp) and without, at budgets of 0.5, 1
// and 2 % (or --budgets); then the means per kind of pair (another GPU, another key).
// --prior-data DIR adds recordings that serve only as priors (e.g. a budgeted DB's sample).
// usage: bench_strategies [--data DIR]... [--db DIR]... [--prior-data DIR]... [--budgets a,b,...]
//                         [--seeds S] [--strategies a,b,...] [--in-flight N] [--within P] [--prior]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "ktune/db_tables.hpp"
#include "ktune/error.hpp"
#include "ktune/prior.hpp"
#include "ktune/replay.hpp"
#include "ktune/simulate.hpp"
#include "ktune/strategy.hpp"

namespace {

namespace fs = std::filesystem;
constexpr double kBudgetsPct[] = {0.5, 1, 2, 5, 10};
const std::vector<double> kPriorBudgetsPct = {0.5, 1, 2};  // --prior's, unless --budgets

// A recorded space to replay: a Kernel Tuner cache, or one key of a ktune DB.
struct Source {
  fs::path file;
  std::string key;          // empty: a cache file
  bool prior_only = false;  // --prior-data: a prior for the others, never a target
  ktune::ReplaySpace load() const {
    return key.empty() ? ktune::ReplaySpace::from_cache_file(file) : ktune::ReplaySpace::from_db(file, key);
  }
  std::string label() const {
    if (key.empty()) return file.filename().string();
    return file.parent_path().filename().string() + "/" + file.stem().string() + " " + key;
  }
};

// Every key of every DB file (*.json) under `dir`; other JSON files (tune summaries) skipped.
void add_db_keys(const fs::path& dir, std::vector<Source>& out) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& f : fs::recursive_directory_iterator(dir, ec))
    if (f.path().extension() == ".json") files.push_back(f.path());
  if (ec) std::printf("bench_strategies: cannot read %s: %s\n", dir.c_str(), ec.message().c_str());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::set<std::string> keys;
    try {
      keys = ktune::DbTables::load(file).keys();
    } catch (const ktune::Error&) {
      continue;  // not a ktune DB
    }
    for (const std::string& key : keys) out.push_back({file, key});
  }
}

// E[min of n draws without replacement] over `times` (failures already at the worst time).
double expected_random_best(std::vector<double> times, std::size_t n) {
  std::sort(times.begin(), times.end());
  const double N = static_cast<double>(times.size());
  double p = static_cast<double>(n) / N;  // P(the minimum is the 1st smallest)
  double e = 0;
  for (std::size_t k = 1; k + n <= times.size() + 1; ++k) {
    e += p * times[k - 1];
    p *= (N - static_cast<double>(k) - static_cast<double>(n) + 1) / (N - static_cast<double>(k));
  }
  return e;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// A recording with what its scores need: the times (failures at the slowest timed config's
// time), the optimum and the slowest.
struct Scored {
  ktune::ReplaySpace space;
  std::vector<double> times;
  double optimum = 0, worst = 0;
  explicit Scored(ktune::ReplaySpace s) : space(std::move(s)) {
    optimum = space.best().second;
    worst = optimum;
    for (std::size_t i = 0; i < space.size(); ++i)
      if (space.outcome(i).status == ktune::Status::Ok) worst = std::max(worst, space.outcome(i).time_ms);
    for (std::size_t i = 0; i < space.size(); ++i)
      times.push_back(space.outcome(i).status == ktune::Status::Ok ? space.outcome(i).time_ms : worst);
  }
  std::size_t budget(double pct) const {
    return std::max<std::size_t>(1, static_cast<std::size_t>(pct / 100 * space.size() + 0.5));
  }
  // The score of `strategy` at `n` evaluations over `seeds` seeds.
  double score(const std::string& strategy, std::size_t n, int seeds, std::size_t in_flight,
               const std::vector<std::size_t>& prior = {}) const {
    double mean_best = 0;
    for (int seed = 0; seed < seeds; ++seed) {
      const ktune::SimulationResult r = ktune::simulate(space, strategy, n, static_cast<uint64_t>(seed), nullptr, 0,
                                                        ktune::proposals_ahead(in_flight, n), prior);
      mean_best += (r.best_ms ? *r.best_ms : worst) / seeds;
    }
    const double random_best = expected_random_best(times, n);
    return (random_best - mean_best) / (random_best - optimum);
  }
};

// --prior: every ordered pair of recordings of one kernel, with and without the prior.
int transfer(const std::vector<Source>& files, const std::vector<std::string>& strategies, int seeds,
             std::size_t in_flight, const std::vector<double>& budgets) {
  std::vector<Scored> spaces;
  for (const Source& f : files) spaces.emplace_back(f.load());
  std::printf(
      "transfer: score with the other recording's ranking as prior / without, mean best of %d seeds; "
      "%zu proposal(s) in flight\n\n%-40s %-40s %-14s",
      seeds, in_flight, "target", "prior from", "strategy");
  for (double b : budgets) std::printf("  %5.1f%% prior/cold", b);
  std::printf("\n");
  // Per kind of pair (another GPU, or another key on the same GPU), strategy and budget:
  // the sums of the scores with the prior and cold, and the pairs counted.
  struct Sums {
    std::vector<double> with, cold;
    int pairs = 0;
  };
  std::map<std::string, std::map<std::string, Sums>> sums;
  int pairs = 0;
  for (std::size_t t = 0; t < spaces.size(); ++t)
    for (const Scored& other : spaces) {
      const Scored& target = spaces[t];
      if (files[t].prior_only || &target == &other || target.space.kernel() != other.space.kernel()) continue;
      std::vector<std::size_t> prior;
      try {
        prior = ktune::prior_from(other.space, target.space);
      } catch (const ktune::Error&) {
        continue;  // other parameters: not one kernel's space
      }
      ++pairs;
      const std::string kind = target.space.device() == other.space.device() ? "another key, same GPU" : "another GPU";
      for (const std::string& strategy : strategies) {
        Sums& sum = sums[kind][strategy];
        sum.with.resize(budgets.size()), sum.cold.resize(budgets.size());
        ++sum.pairs;
        std::printf("%-40s %-40s %-14s", fs::path(target.space.origin()).filename().string().c_str(),
                    fs::path(other.space.origin()).filename().string().c_str(), strategy.c_str());
        for (std::size_t b = 0; b < budgets.size(); ++b) {
          const std::size_t n = target.budget(budgets[b]);
          const double with = target.score(strategy, n, seeds, in_flight, prior);
          const double cold = target.score(strategy, n, seeds, in_flight);
          sum.with[b] += with, sum.cold[b] += cold;
          std::printf("  %8.3f / %6.3f", with, cold);
        }
        std::printf("\n");
      }
    }
  if (pairs == 0) {
    std::printf("no two recordings of one kernel\n");
    return 1;
  }
  for (const auto& [kind, by_strategy] : sums)
    for (const auto& [strategy, s] : by_strategy) {
      std::printf("\nmean over %d pair(s), %s, %s: prior / cold\n ", s.pairs, kind.c_str(), strategy.c_str());
      for (std::size_t b = 0; b < budgets.size(); ++b)
        std::printf("  %5.1f%% %.3f / %.3f", budgets[b], s.with[b] / s.pairs, s.cold[b] / s.pairs);
      std::printf("\n");
    }
  return 0;
}

// The command line.
struct Options {
  std::vector<fs::path> data, dbs, prior_data;
  std::vector<double> budgets_pct{std::begin(kBudgetsPct), std::end(kBudgetsPct)};
  bool budgets_given = false;
  int seeds = 50;
  std::size_t in_flight = 1;
  std::vector<std::string> strategies = ktune::strategy_names();
  bool prior = false;
  double within_pct = 0;  // 0: no "within" rows
};

// The options, or the exit code of a bad command line (after saying why).
std::variant<Options, int> parse_options(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string opt = argv[a];
    if (opt == "--prior") {
      o.prior = true;
      continue;
    }
    if (a + 1 >= argc) {
      std::fprintf(stderr, "%s: %s needs a value\n", argv[0], opt.c_str());
      return 2;
    }
    ++a;
    if (opt == "--data")
      o.data.emplace_back(argv[a]);
    else if (opt == "--db")
      o.dbs.emplace_back(argv[a]);
    else if (opt == "--prior-data")
      o.prior_data.emplace_back(argv[a]);
    else if (opt == "--budgets") {
      o.budgets_given = true;
      o.budgets_pct.clear();
      for (const std::string& b : split(argv[a])) o.budgets_pct.push_back(std::atof(b.c_str()));
      if (o.budgets_pct.empty() ||
          std::any_of(o.budgets_pct.begin(), o.budgets_pct.end(), [](double b) { return !(b > 0 && b <= 100); })) {
        std::fprintf(stderr, "%s: --budgets takes percentages in (0, 100], e.g. 0.5,1,2\n", argv[0]);
        return 2;
      }
    } else if (opt == "--seeds")
      o.seeds = std::atoi(argv[a]);
    else if (opt == "--strategies")
      o.strategies = split(argv[a]);
    else if (opt == "--within")
      o.within_pct = std::atof(argv[a]);
    else if (opt == "--in-flight")
      o.in_flight = static_cast<std::size_t>(std::max(1, std::atoi(argv[a])));
    else {
      std::fprintf(stderr,
                   "usage: %s [--data DIR]... [--db DIR]... [--prior-data DIR]... [--budgets a,b,...] [--seeds S] "
                   "[--strategies a,b,...] [--in-flight N] [--within P] [--prior]\n",
                   argv[0]);
      return 2;
    }
  }
  const std::vector<std::string> known = ktune::strategy_names();
  for (const std::string& s : o.strategies)
    if (std::find(known.begin(), known.end(), s) == known.end()) {
      std::string names;
      for (const std::string& k : known) names += (names.empty() ? "" : ", ") + k;
      std::fprintf(stderr, "%s: unknown strategy '%s' (known: %s)\n", argv[0], s.c_str(), names.c_str());
      return 2;
    }
  if (o.data.empty() && o.dbs.empty()) o.data = {"../shared/data/benchmark_hub", "benchmarks/recordings"};
  return o;
}

// The Kernel Tuner caches (*.json.gz) of a directory, not its subdirectories.
void add_caches(const fs::path& dir, bool prior_only, std::vector<Source>& out) {
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(dir, ec))
    if (f.path().string().ends_with(".json.gz")) out.push_back({f.path(), "", prior_only});
  if (ec) std::printf("bench_strategies: cannot read %s: %s\n", dir.c_str(), ec.message().c_str());
}

std::vector<Source> gather_sources(const Options& o) {
  std::vector<Source> files;
  for (const fs::path& dir : o.data) add_caches(dir, false, files);
  std::sort(files.begin(), files.end(),
            [](const Source& a, const Source& b) { return a.file.filename() < b.file.filename(); });
  for (const fs::path& dir : o.dbs) add_db_keys(dir, files);
  for (const fs::path& dir : o.prior_data) add_caches(dir, true, files);
  return files;
}

double mean_of(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
}

// Every score of the table, for the summaries after it.
struct Tally {
  std::map<std::string, std::vector<double>> all;                            // strategy -> scores
  std::map<std::string, std::map<std::string, double>> space_mean;           // space -> strategy -> mean
  std::map<std::string, std::map<std::string, std::vector<double>>> family;  // kernel -> strategy -> scores
  std::map<std::string, std::vector<std::vector<double>>> budget;            // strategy -> budget -> scores
};

// One space's rows of the table: each strategy's score at each budget.
void score_space(const Source& file, const Options& o, Tally& tally) {
  const Scored scored(file.load());
  const ktune::ReplaySpace& space = scored.space;
  std::vector<std::size_t> budgets;
  for (double b : o.budgets_pct) budgets.push_back(scored.budget(b));
  std::vector<double> random_best;
  for (std::size_t n : budgets) random_best.push_back(expected_random_best(scored.times, n));
  const std::string label = file.label().substr(0, 44);
  for (const std::string& strategy : o.strategies) {
    std::vector<double> mean_best(budgets.size(), 0);
    std::vector<int> close(budgets.size(), 0);  // seeds within within_pct of the optimum
    const auto start = std::chrono::steady_clock::now();
    for (int seed = 0; seed < o.seeds; ++seed)
      for (std::size_t b = 0; b < budgets.size(); ++b) {
        const ktune::SimulationResult r = ktune::simulate(space, strategy, budgets[b], static_cast<uint64_t>(seed),
                                                          nullptr, 0, ktune::proposals_ahead(o.in_flight, budgets[b]));
        mean_best[b] += (r.best_ms ? *r.best_ms : scored.worst) / o.seeds;
        if (r.best_ms && *r.best_ms <= scored.optimum * (1 + o.within_pct / 100)) ++close[b];
      }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%-44s %-14s", label.c_str(), strategy.c_str());
    std::vector<double> scores;
    tally.budget[strategy].resize(budgets.size());
    for (std::size_t b = 0; b < budgets.size(); ++b) {
      const double score = (random_best[b] - mean_best[b]) / (random_best[b] - scored.optimum);
      scores.push_back(score);
      tally.all[strategy].push_back(score);
      tally.family[space.kernel()][strategy].push_back(score);
      tally.budget[strategy][b].push_back(score);
      std::printf(" %8.3f", score);
    }
    std::printf(" %6.3f %7.3f\n", mean_of(scores), seconds / o.seeds);
    if (o.within_pct > 0) {
      std::printf("%-44s   within %4.1f %%", "", o.within_pct);
      for (int c : close) std::printf(" %8.2f", static_cast<double>(c) / o.seeds);
      std::printf("\n");
    }
    tally.space_mean[label][strategy] = mean_of(scores);
  }
  std::printf("%-44s %-14s", "  (n = evaluations)", "");
  for (std::size_t n : budgets) std::printf(" %8zu", n);
  std::printf("   of %zu configs, optimum %.4f ms\n\n", space.size(), scored.optimum);
}

// The means over every space, per kernel and per budget.
void print_means(const Tally& tally, const Options& o) {
  std::printf("mean score over every space and budget:\n");
  for (const auto& [strategy, s] : tally.all) std::printf("  %-14s %.3f\n", strategy.c_str(), mean_of(s));
  std::printf(
      "\nmean score per kernel (family of spaces) over its spaces and budgets, and per budget over every space:\n%-14s",
      "strategy");
  for (const auto& [family, scores] : tally.family) std::printf(" %22s", family.substr(0, 22).c_str());
  for (double b : o.budgets_pct) std::printf(" %7.1f%%", b);
  std::printf("\n");
  for (const std::string& strategy : o.strategies) {
    std::printf("%-14s", strategy.c_str());
    for (const auto& [family, scores] : tally.family) std::printf(" %22.3f", mean_of(scores.at(strategy)));
    for (const std::vector<double>& at : tally.budget.at(strategy)) std::printf(" %8.3f", mean_of(at));
    std::printf("\n");
  }
}

// Leave one space out: the strategy a default would be chosen as by every other space,
// scored on the one left out, against the best choice had that space been seen (fitted).
void print_leave_one_out(const Tally& tally, const std::vector<std::string>& strategies) {
  if (tally.space_mean.size() < 2) return;
  std::printf("\nleave one space out (the strategy with the best mean on the other spaces, scored on this one):\n");
  double held_sum = 0, fitted_sum = 0;
  for (const auto& [held, scores] : tally.space_mean) {
    std::string chosen;
    double chosen_mean = -1e300;
    for (const std::string& strategy : strategies) {
      double sum = 0;
      for (const auto& [other, other_scores] : tally.space_mean)
        if (other != held) sum += other_scores.at(strategy);
      if (sum > chosen_mean) chosen_mean = sum, chosen = strategy;
    }
    std::string best;
    for (const auto& [strategy, score] : scores)
      if (best.empty() || score > scores.at(best)) best = strategy;
    held_sum += scores.at(chosen);
    fitted_sum += scores.at(best);
    std::printf("  %-44s chosen %-14s held-out %6.3f   best had it been seen: %-14s %6.3f\n", held.c_str(),
                chosen.c_str(), scores.at(chosen), best.c_str(), scores.at(best));
  }
  const auto n = static_cast<double>(tally.space_mean.size());
  std::printf("  mean                               held-out %6.3f   fitted %6.3f\n", held_sum / n, fitted_sum / n);
}

}  // namespace

int main(int argc, char** argv) {
  const std::variant<Options, int> parsed = parse_options(argc, argv);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  const Options& o = std::get<Options>(parsed);
  const std::vector<Source> files = gather_sources(o);
  if (files.empty()) {
    std::printf("bench_strategies: no Kernel Tuner caches (*.json.gz) or DB keys in the data directories\n");
    return 1;
  }
  if (o.prior)
    return transfer(files, o.strategies, o.seeds, o.in_flight, o.budgets_given ? o.budgets_pct : kPriorBudgetsPct);
  std::printf(
      "score = (R(n) - B(n)) / (R(n) - optimum), mean best of %d seeds; 1 = optimal, 0 = random; "
      "%zu proposal(s) in flight\n\n",
      o.seeds, o.in_flight);
  std::printf("%-44s %-14s", "space", "strategy");
  for (double b : o.budgets_pct) std::printf(" %7.1f%%", b);
  std::printf("   mean  s/seed\n");
  Tally tally;
  for (const Source& file : files)
    if (!file.prior_only) score_space(file, o, tally);
  print_means(tally, o);
  print_leave_one_out(tally, o.strategies);
  return 0;
}
