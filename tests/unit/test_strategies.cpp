// The rules every strategy keeps (each config once, DEFAULT first, budget, seeds, failures,
// degenerate spaces), checked for every name make_strategy knows; then how well the
// sampling strategies find the optimum of small spaces of known shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/strategy.hpp"

using ktune::make_strategy;
using ktune::Observation;
using ktune::SearchSpace;
using ktune::Status;
using Idx = std::vector<std::size_t>;

namespace {

// Every combination of `dims` parameters with `n` values each, minus those `drop` rejects
// (the rows are value positions: values are 10 × position, so positions and values differ).
SearchSpace grid(std::size_t dims, std::size_t n, const std::function<bool(const std::vector<int64_t>&)>& drop = {}) {
  std::vector<ktune::Parameter> parameters;
  for (std::size_t k = 0; k < dims; ++k) {
    ktune::Parameter p{"P" + std::to_string(k), {}};
    for (std::size_t v = 0; v < n; ++v) p.values.push_back(static_cast<int64_t>(10 * v));
    parameters.push_back(p);
  }
  std::vector<int64_t> rows, position(dims, 0);
  for (bool more = true; more;) {
    if (!drop || !drop(position))
      for (int64_t p : position) rows.push_back(10 * p);
    more = false;
    for (std::size_t k = dims; k-- > 0;) {
      if (++position[k] < static_cast<int64_t>(n)) {
        more = true;
        break;
      }
      position[k] = 0;
    }
  }
  return SearchSpace(parameters, rows);
}

// What a config measures: a time, or a failure when the time is negative.
using Oracle = std::function<double(std::size_t)>;

// Runs a strategy the way the tuner does, one config at a time, to done() or `budget`.
Idx run(ktune::Strategy& s, const Oracle& oracle, std::size_t budget = SIZE_MAX, std::size_t batch = 1) {
  Idx all;
  while (!s.done() && all.size() < budget) {
    Idx proposed = s.propose(batch);
    EXPECT_FALSE(proposed.empty()) << s.name() << ": nothing proposed while not done";
    if (proposed.empty()) break;
    for (std::size_t i : proposed) {
      all.push_back(i);
      const double t = oracle(i);
      s.observe(t < 0 ? Observation{i, Status::CompileFailed, 0} : Observation{i, Status::Ok, t});
    }
  }
  return all;
}

// A smooth, slightly anisotropic bowl over 3 parameters x 10 values, its minimum at
// positions (6, 2, 7), well away from the DEFAULT in the corner (0, 0, 0).
const SearchSpace& bowl_space() {
  static const SearchSpace space = grid(3, 10);
  return space;
}
double bowl(std::size_t i) {
  auto r = bowl_space().row(i);
  const double d0 = r[0] - 6.0, d1 = r[1] - 2.0, d2 = r[2] - 7.0;
  return 1.0 + d0 * d0 + 2 * d1 * d1 + 0.5 * d2 * d2;
}
std::size_t bowl_optimum() {
  const uint32_t at[] = {6, 2, 7};
  return *bowl_space().find(at);
}

// A deterministic scramble: which configs fail in the failing spaces.
uint64_t scramble(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

void expect_each_once(const Idx& all, std::size_t size) {
  std::vector<int> seen(size, 0);
  for (std::size_t i : all) {
    ASSERT_LT(i, size);
    ++seen[i];
  }
  for (std::size_t i = 0; i < size; ++i) EXPECT_LE(seen[i], 1) << "index " << i << " proposed twice";
}

class EveryStrategy : public ::testing::TestWithParam<std::string> {};

}  // namespace

INSTANTIATE_TEST_SUITE_P(Strategies, EveryStrategy, ::testing::ValuesIn(ktune::strategy_names()), [](const auto& info) {
  std::string name = info.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

TEST_P(EveryStrategy, ExhaustsASmallSpaceEachConfigOnceDefaultFirst) {
  // A 6x6 grid with a constrained corner: 30 configs.
  const SearchSpace space = grid(2, 6, [](const auto& p) { return p[0] + p[1] > 7; });
  ASSERT_EQ(space.size(), 30u);
  for (std::size_t first : {std::size_t{0}, std::size_t{13}, space.size() - 1})
    for (auto budget : {std::optional<std::size_t>(), std::optional<std::size_t>(space.size())})
      for (std::size_t batch : {1u, 4u}) {
        SCOPED_TRACE("first=" + std::to_string(first) + " budget=" + (budget ? "size" : "none") +
                     " batch=" + std::to_string(batch));
        auto s = make_strategy(GetParam(), {space, first, 7, budget});
        EXPECT_EQ(s->name(), GetParam());
        const Idx all = run(
            *s, [&](std::size_t i) { return 1.0 + static_cast<double>(i % 7); }, SIZE_MAX, batch);
        ASSERT_EQ(all.size(), space.size());
        EXPECT_EQ(all.front(), first);
        expect_each_once(all, space.size());
        EXPECT_TRUE(s->done());
        EXPECT_TRUE(s->propose(5).empty());
      }
}

// A prior (configs another GPU found fastest) is measured right after the DEFAULT: its
// first prior_count(limit) configs that are in range, not the DEFAULT and not repeated, in
// its order; the search then goes on by its own rule. Exhaustive ignores it.
TEST_P(EveryStrategy, MeasuresThePriorRightAfterTheDefault) {
  if (GetParam() == "exhaustive") GTEST_SKIP() << "exhaustive visits every config: no prior";
  const SearchSpace space = grid(2, 30);  // 900 configs
  ASSERT_EQ(ktune::prior_count(100), 5u);
  ASSERT_EQ(ktune::prior_count(10), 1u);
  ASSERT_EQ(ktune::prior_count(100000), 16u);
  const std::vector<std::size_t> prior = {500, 7, 500, 12, 9999, 400, 3, 801, 802};
  for (std::size_t batch : {1u, 8u}) {
    auto s = make_strategy(GetParam(), {space, 7, 3, 100, false, prior});
    const Idx all = run(
        *s, [](std::size_t i) { return 1.0 + static_cast<double>(i % 11); }, SIZE_MAX, batch);
    ASSERT_EQ(all.size(), 100u);
    // The DEFAULT (7) first, then 500, 12, 400, 3, 801: 7 is the DEFAULT, the second 500 a
    // repeat and 9999 outside the space.
    EXPECT_EQ(Idx(all.begin(), all.begin() + 6), (Idx{7, 500, 12, 400, 3, 801})) << "batch " << batch;
    expect_each_once(all, space.size());
  }
}

// The prior's configs are answers, not directions: a prior config faster than anything draws
// few proposals to its neighbourhood. Its 4 neighbours are the slowest configs, so one found
// by chance draws no search either. Measured over 10 seeds: 4 (random-refine), 18 (genetic,
// whose children land there more often than uniform draws) and 9 (hybrid) of the 40; had
// they searched from the prior's config, all 40 in every strategy.
TEST(StrategyPrior, ThePriorIsNotSearchedFrom) {
  const SearchSpace space = grid(2, 30);
  const std::size_t trap = 2 * 30 + 2;  // (2, 2)
  const Idx near = space.adjacent(trap);
  auto oracle = [&](std::size_t i) {
    if (i == trap) return 0.1;
    if (std::find(near.begin(), near.end(), i) != near.end()) return 50.0;
    return 1.0 + static_cast<double>(i % 17);
  };
  for (const std::string name : {"random-refine", "genetic", "hybrid"}) {
    int hits = 0;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      auto s = make_strategy(name, {space, 0, seed, 100, false, {trap}});
      const Idx all = run(*s, oracle, 100);
      ASSERT_EQ(all[1], trap) << name;
      for (std::size_t i : all) hits += std::find(near.begin(), near.end(), i) != near.end();
    }
    std::cout << name << ": " << hits << " proposals next to the prior's config in 10 seeds\n";
    EXPECT_LE(hits, 24) << name;
  }
}

// With a prior, genetic's model weighs what the prior says of each config against the
// results here (strategy/transfer_score.hpp). On a rugged space, where a cold search of 30
// evaluations is left to chance, a prior from a GPU whose times differ in part must find
// a config close to the optimum far sooner, and a prior whose ranking is the reverse of
// the truth must cost little against cold. Mean true rank (0 = the optimum) of the best
// found in 30 evaluations of 1,728, over 20 seeds, measured: cold 28.35, right prior 3.25
// (the prior's first config alone: rank 9), misleading prior 35.85.
TEST(StrategyPrior, GeneticFollowsAPriorThatHoldsNotOneThatMisleads) {
  const SearchSpace space = grid(3, 12);
  auto rugged = [&](uint64_t salt, double weight) {  // a smooth trend and a per-config jolt
    return [&space, salt, weight](std::size_t i) {
      const double p0 = space.position(i, 0), p1 = space.position(i, 1);
      uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ salt;  // a stateless mix (splitmix64's finaliser)
      h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
      h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
      const double jolt = static_cast<double>((h ^ (h >> 31)) >> 11) * 0x1.0p-53;
      return std::exp(0.02 * (p0 - 8) * (p0 - 8) + 0.02 * (p1 - 3) * (p1 - 3) + weight * jolt);
    };
  };
  const Oracle truth = rugged(0, 1.0);
  auto ranking_by = [&](const Oracle& f) {
    Idx r(space.size());
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = i;
    std::sort(r.begin(), r.end(), [&](std::size_t x, std::size_t y) { return f(x) < f(y); });
    return r;
  };
  std::vector<std::size_t> true_rank(space.size());
  const Idx by_truth = ranking_by(truth);
  for (std::size_t r = 0; r < by_truth.size(); ++r) true_rank[by_truth[r]] = r;
  auto mean_rank = [&](const Idx& prior) {
    double sum = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      auto s = make_strategy("genetic", {space, 0, seed, 30, false, prior});
      std::size_t best = SIZE_MAX;
      for (std::size_t i : run(*s, truth, 30)) best = std::min(best, true_rank[i]);
      sum += static_cast<double>(best) / 20;
    }
    return sum;
  };
  // Another GPU: the same jolts, less of them, and a second, smaller set of its own.
  Idx prior = ranking_by([&](std::size_t i) { return rugged(0, 0.6)(i) * rugged(17, 0.4)(i); });
  const auto first = static_cast<double>(true_rank[prior[0]]);  // what measuring the prior's best alone gives
  const double cold = mean_rank({}), right = mean_rank(prior);
  std::reverse(prior.begin(), prior.end());
  const double wrong = mean_rank(prior);
  std::cout << "mean true rank of the best found: cold " << cold << ", right prior " << right
            << " (its first config: " << first << "), misleading prior " << wrong << "\n";
  EXPECT_LT(right, cold / 4);
  EXPECT_LT(right, first / 2) << "the model searched no further than the prior's first config";
  EXPECT_LT(wrong, cold * 1.5 + 5);
}

TEST_P(EveryStrategy, StopsAtTheBudget) {
  auto s = make_strategy(GetParam(), {bowl_space(), 5, 3, 40});
  const Idx all = run(*s, bowl);
  if (GetParam() == "exhaustive") return;  // the tuner enforces its budget
  EXPECT_EQ(all.size(), 40u);
  EXPECT_TRUE(s->done());
  expect_each_once(all, bowl_space().size());
}

TEST_P(EveryStrategy, ProposingAheadOfResultsNeverStalls) {
  // Proposing again before any result arrives never stalls the tuner.
  auto s = make_strategy(GetParam(), {bowl_space(), 0, 1, std::nullopt});
  Idx all;
  for (int round = 0; round < 3; ++round) {
    const Idx batch = s->propose(8);
    EXPECT_EQ(batch.size(), 8u);
    all.insert(all.end(), batch.begin(), batch.end());
  }
  expect_each_once(all, bowl_space().size());
}

TEST_P(EveryStrategy, SameSeedSameProposals) {
  // Failures mixed in, so that the strategies' failure paths are deterministic too.
  const Oracle oracle = [](std::size_t i) { return scramble(i) % 5 == 0 ? -1.0 : bowl(i); };
  auto sequence = [&](uint64_t seed) {
    auto s = make_strategy(GetParam(), {bowl_space(), 0, seed, 150});
    return run(*s, oracle, 150);
  };
  EXPECT_EQ(sequence(11), sequence(11));
  if (GetParam() != "exhaustive") EXPECT_NE(sequence(11), sequence(12));
}

TEST_P(EveryStrategy, SurvivesASpaceWhereMostConfigsFail) {
  // 90 % of the configs fail, the DEFAULT among them.
  const Oracle oracle = [](std::size_t i) { return i == 0 || scramble(i) % 10 != 0 ? -1.0 : bowl(i); };
  for (uint64_t seed : {1, 2, 3}) {
    auto s = make_strategy(GetParam(), {bowl_space(), 0, seed, 300});
    const Idx all = run(*s, oracle, 300);
    ASSERT_EQ(all.size(), 300u);
    EXPECT_EQ(all.front(), 0u);
    expect_each_once(all, bowl_space().size());
  }
  // Where everything fails, the search still covers the whole space.
  auto s = make_strategy(GetParam(), {bowl_space(), 3, 1, std::nullopt});
  const Idx all = run(*s, [](std::size_t) { return -1.0; });
  EXPECT_EQ(all.size(), bowl_space().size());
  expect_each_once(all, bowl_space().size());
}

TEST_P(EveryStrategy, OneConfigAndEmptySpaces) {
  const std::vector<int64_t> one_row = {4};
  const SearchSpace one({{"X", {4}}}, one_row);
  for (auto budget : {std::optional<std::size_t>(), std::optional<std::size_t>(10)}) {
    auto s = make_strategy(GetParam(), {one, 0, 1, budget});
    EXPECT_FALSE(s->done());
    EXPECT_EQ(s->propose(3), (Idx{0}));
    s->observe({0, Status::Ok, 2.0});
    EXPECT_TRUE(s->done());
    EXPECT_TRUE(s->propose(3).empty());
  }
  const SearchSpace empty({{"X", {4}}}, std::vector<int64_t>{});
  auto s = make_strategy(GetParam(), {empty, 0, 1, std::nullopt});
  EXPECT_TRUE(s->done());
  EXPECT_TRUE(s->propose(3).empty());
}

TEST_P(EveryStrategy, RejectsADefaultOutsideTheSpace) {
  EXPECT_THROW(make_strategy(GetParam(), {bowl_space(), bowl_space().size(), 1, std::nullopt}), ktune::Error);
  auto s = make_strategy(GetParam(), {bowl_space(), 0, 1, std::nullopt});
  EXPECT_THROW(s->observe({bowl_space().size(), Status::Ok, 1.0}), ktune::Error);
}

// How often each searching strategy finds the exact optimum of the bowl (1000 configs)
// within a tenth of the space, over 20 seeds (the issue asks for a quarter). Measured:
// 20/20 for each; the bar of 16 leaves room for changes of settings, not for a strategy
// that lost its way (random search finds it in 10 % of seeds).
TEST(StrategyQuality, SearchersFindTheBowlOptimum) {
  for (const std::string name : {"local", "annealing", "genetic", "bayes", "random-refine", "hybrid"}) {
    int found = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      auto s = make_strategy(name, {bowl_space(), 0, seed, 100});
      const Idx all = run(*s, bowl);
      found += std::find(all.begin(), all.end(), bowl_optimum()) != all.end();
    }
    std::cout << name << " found the optimum in " << found << "/20 seeds\n";
    EXPECT_GE(found, 16) << name;
  }
}

// As the tuner runs them: `ahead` proposals out before the oldest result comes back.
Idx run_ahead(ktune::Strategy& s, const Oracle& oracle, std::size_t ahead) {
  Idx all;
  std::deque<std::size_t> waiting;
  for (;;) {
    while (waiting.size() < ahead && !s.done()) {
      const Idx one = s.propose(1);
      if (one.empty()) break;
      all.push_back(one[0]);
      waiting.push_back(one[0]);
    }
    if (waiting.empty()) return all;
    const std::size_t i = waiting.front();
    waiting.pop_front();
    s.observe({i, Status::Ok, oracle(i)});
  }
}

// Climbing while its results are pending: with proposals out before results come back,
// `local` proposes around its climb, not at random: first the DEFAULT's neighbours (its
// result pending), then, once a faster neighbour is known, that one's.
TEST(StrategyQuality, LocalClimbsWithResultsPending) {
  const SearchSpace& space = bowl_space();
  auto near = [&](std::size_t a, std::size_t b) {
    auto ra = space.row(a), rb = space.row(b);
    std::size_t differ = 0;
    for (std::size_t k = 0; k < ra.size(); ++k) differ += ra[k] != rb[k];
    return differ == 1;
  };
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    auto s = make_strategy("local", {space, 0, seed, 100});
    const Idx first = s->propose(9);
    ASSERT_EQ(first.size(), 9u);
    EXPECT_EQ(first[0], 0u);
    for (std::size_t k = 1; k < first.size(); ++k) EXPECT_TRUE(near(0, first[k])) << "proposal " << k;
    std::size_t best = first[0];
    for (std::size_t i : first) {
      s->observe({i, Status::Ok, bowl(i)});
      if (bowl(i) < bowl(best)) best = i;
    }
    ASSERT_NE(best, 0u) << "the bowl falls away from the DEFAULT in some direction";
    for (std::size_t i : s->propose(4)) EXPECT_TRUE(near(best, i)) << i << " is not next to the best, " << best;
  }
  // And it still finds the optimum within a tenth of the space with 8 results pending.
  int found = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto s = make_strategy("local", {space, 0, seed, 100});
    const Idx all = run_ahead(*s, bowl, 8);
    found += std::find(all.begin(), all.end(), bowl_optimum()) != all.end();
  }
  std::cout << "local, 8 ahead, found the optimum in " << found << "/20 seeds\n";
  EXPECT_GE(found, 16);
}

// As the tuner runs them, 8 proposals out before the oldest result is back, the searchers
// still find the bowl's optimum within a tenth of the space in most seeds. Measured (20
// seeds): 20 for each (genetic without its refinement of the best: 18).
TEST(StrategyQuality, SearchersFindTheBowlOptimumWithResultsPending) {
  for (const std::string name : {"local", "annealing", "genetic", "bayes", "random-refine", "hybrid"}) {
    int found = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      auto s = make_strategy(name, {bowl_space(), 0, seed, 100});
      const Idx all = run_ahead(*s, bowl, 8);
      found += std::find(all.begin(), all.end(), bowl_optimum()) != all.end();
    }
    std::cout << name << ", 8 ahead, found the optimum in " << found << "/20 seeds\n";
    EXPECT_GE(found, 16) << name;
  }
}

// cuTile.jl's refinement pays: with 50 evaluations (5 % of the bowl), random-refine's best
// is on average better than random search's over 20 seeds (measured: 1.0, the optimum,
// against 3.5).
TEST(StrategyQuality, RandomRefineBeatsRandom) {
  auto mean_best = [](const std::string& name) {
    double sum = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      auto s = make_strategy(name, {bowl_space(), 0, seed, 50});
      const Idx all = run(*s, bowl);
      double best = bowl(all.front());
      for (std::size_t i : all) best = std::min(best, bowl(i));
      sum += best;
    }
    return sum / 20;
  };
  const double random = mean_best("random"), refine = mean_best("random-refine");
  std::cout << "mean best of 50: random " << random << ", random-refine " << refine << "\n";
  EXPECT_LT(refine, random);
}

// Two basins: a broad one around (1, 1, 1, 1) whose floor is a local optimum, and a narrow,
// faster one around (5, 5, 5, 5) (within 3 steps of it). The broad basin draws the fastest
// configs of a random start, so breeding and a model of the fast configs stay in it; `hybrid`
// must still find the narrow optimum in a fair share of seeds, one at a time and with
// proposals running ahead. 130 of the 1296 configs, 20 seeds: random search finds it in
// about 2 (10 % a seed); the bar, 4, is a floor against a search that stops exploring.
TEST(StrategyQuality, HybridLeavesABroadBasinsFloor) {
  static const SearchSpace space = grid(4, 6);
  auto time = [&](std::size_t i) {
    const auto r = space.row(i);
    double to_broad = 0, to_narrow = 0;
    for (uint32_t v : r) to_broad += std::abs(static_cast<double>(v) - 1), to_narrow += 5.0 - v;
    return to_narrow <= 3 ? 1 + 0.2 * to_narrow : 2 + 0.1 * to_broad;
  };
  const uint32_t at[] = {5, 5, 5, 5};
  const std::size_t optimum = *space.find(at);
  for (std::size_t ahead : {1u, 8u}) {
    int found = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      auto s = make_strategy("hybrid", {space, 0, seed, 130});
      const Idx all = run_ahead(*s, time, ahead);
      found += std::find(all.begin(), all.end(), optimum) != all.end();
    }
    std::cout << "hybrid, " << ahead << " ahead, found the narrow optimum in " << found << "/20 seeds\n";
    EXPECT_GE(found, 4) << ahead << " ahead";
  }
}

// A DEFAULT at the bottom of a bowl whose every adjacent neighbour is slower, and a faster
// config one jump away in one parameter (the bottom's value of P0 and P1, the first value of
// P2): `genetic` refines the best's whole Hamming neighbourhood once its adjacent one is
// spent, and more so as the budget ends. Measured (20 seeds, 60 evaluations of 1,728):
// found in 19 (before refinement went past adjacent values and grew to the end: 6).
TEST(StrategyQuality, GeneticJumpsOneParameterFromALocalOptimum) {
  const SearchSpace space = grid(3, 12);
  auto at = [](std::size_t a, std::size_t b, std::size_t c) { return (a * 12 + b) * 12 + c; };
  const std::size_t bottom = at(6, 6, 6), jump = at(6, 6, 0);
  auto oracle = [&](std::size_t i) {
    if (i == jump) return 0.5;
    const auto d = [](std::size_t v) { return std::abs(static_cast<double>(v) - 6); };
    return 1.0 + d(i / 144) + d(i / 12 % 12) + d(i % 12);
  };
  int found = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto s = make_strategy("genetic", {space, bottom, seed, 60});
    const Idx all = run(*s, oracle);
    found += std::find(all.begin(), all.end(), jump) != all.end();
  }
  std::cout << "genetic found the jump in " << found << "/20 seeds\n";
  EXPECT_GE(found, 15);
}
