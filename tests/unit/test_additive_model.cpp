// The additive model that picks genetic's children (tuner/src/strategy/additive_model.hpp):
// fitted to a few dozen results, its posterior draws must find the fast region of a
// landscape it can express, steer away from failures, and be the same for a seed. And the
// score of a prior it can weigh (transfer_score.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "strategy/additive_model.hpp"
#include "strategy/search_state.hpp"
#include "strategy/transfer_score.hpp"

using ktune::AdditiveModel;
using ktune::Observation;
using ktune::SearchSpace;
using ktune::SearchState;
using ktune::Status;

namespace {

// Every combination of 3 parameters × 10 values (value = 10 × position).
SearchSpace cube() {
  std::vector<ktune::Parameter> parameters;
  for (int k = 0; k < 3; ++k) {
    ktune::Parameter p{"P" + std::to_string(k), {}};
    for (int v = 0; v < 10; ++v) p.values.push_back(10 * v);
    parameters.push_back(p);
  }
  std::vector<int64_t> rows;
  for (int a = 0; a < 10; ++a)
    for (int b = 0; b < 10; ++b)
      for (int c = 0; c < 10; ++c) rows.insert(rows.end(), {10 * a, 10 * b, 10 * c});
  return SearchSpace(parameters, rows);
}

// Log time: a bowl in P0 (best at 6), a slope in P1 (best at 2), a P0×P2 interaction.
double log_time(const SearchSpace& s, std::size_t i) {
  const double p0 = s.position(i, 0), p1 = s.position(i, 1), p2 = s.position(i, 2);
  return 0.05 * (p0 - 6) * (p0 - 6) + 0.1 * std::abs(p1 - 2) + 0.02 * (p0 - 4.5) * (p2 - 4.5);
}

// The config of the space that the weights `w` predict fastest.
std::size_t predicted_fastest(const SearchSpace& space, const AdditiveModel& model, const std::vector<double>& w) {
  std::size_t pick = 0;
  for (std::size_t i = 1; i < space.size(); ++i)
    if (model.predict(w, i) < model.predict(w, pick)) pick = i;
  return pick;
}

// The true rank (0 = fastest) of the config a posterior draw predicts fastest, per draw.
std::vector<std::size_t> ranks_of_picks(const SearchSpace& space, AdditiveModel& model, SearchState& state,
                                        const std::vector<double>& truth, int draws) {
  std::vector<double> sorted(truth);
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::size_t> ranks;
  for (int d = 0; d < draws; ++d) {
    const std::size_t pick = predicted_fastest(space, model, model.draw(state));
    ranks.push_back(
        static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), truth[pick]) - sorted.begin()));
  }
  return ranks;
}

}  // namespace

TEST(AdditiveModel, FindsTheFastRegionFromFewResults) {
  const SearchSpace space = cube();
  std::vector<double> truth;
  for (std::size_t i = 0; i < space.size(); ++i) truth.push_back(log_time(space, i));
  SearchState state("test", ktune::StrategyContext{space, 0, 7});
  AdditiveModel model(space);
  EXPECT_FALSE(model.fitted());
  for (int n = 0; n < 40; ++n) {  // 4 % of the space, at random
    const std::size_t i = state.any_unproposed();
    state.record(Observation{i, Status::Ok, std::exp(truth[i])});
  }
  model.fit(state);
  ASSERT_TRUE(model.fitted());
  std::vector<std::size_t> ranks = ranks_of_picks(space, model, state, truth, 21);
  std::sort(ranks.begin(), ranks.end());
  // Uniform picks would have a median rank near 500 of 1000; 50 is the best 5 %.
  EXPECT_LT(ranks[ranks.size() / 2], 50u) << "median true rank of the predicted fastest";
}

TEST(AdditiveModel, FailuresAreTaughtAsSlow) {
  const SearchSpace space = cube();
  // The fastest configs by time have P0 >= 7, but those fail: the picks must avoid them.
  auto fails = [&](std::size_t i) { return space.position(i, 0) >= 7; };
  auto time = [&](std::size_t i) { return std::exp(0.1 * (9.0 - space.position(i, 0)) + 0.05 * space.position(i, 1)); };
  SearchState state("test", ktune::StrategyContext{space, 0, 3});
  for (int n = 0; n < 60; ++n) {
    const std::size_t i = state.any_unproposed();
    state.record(fails(i) ? Observation{i, Status::Resource, 0} : Observation{i, Status::Ok, time(i)});
  }
  AdditiveModel model(space);
  model.fit(state);
  int in_failing = 0;
  for (int d = 0; d < 21; ++d) in_failing += fails(predicted_fastest(space, model, model.draw(state))) ? 1 : 0;
  EXPECT_LE(in_failing, 3) << "of 21 draws picked a config in the failing region (30 % of the space)";
}

TEST(AdditiveModel, SameSeedSameDraws) {
  const SearchSpace space = cube();
  auto draws = [&](uint64_t seed) {
    SearchState state("test", ktune::StrategyContext{space, 0, seed});
    for (int n = 0; n < 20; ++n) {
      const std::size_t i = state.any_unproposed();
      state.record(Observation{i, Status::Ok, std::exp(log_time(space, i))});
    }
    AdditiveModel model(space);
    model.fit(state);
    return model.draw(state);
  };
  EXPECT_EQ(draws(5), draws(5));
  EXPECT_NE(draws(5), draws(6));
}

// What a prior says of each config (strategy/transfer_score.hpp): the ranked configs by
// their place, the fastest lowest and the slow half 0; the configs the ranking lacks by a
// model of it, which must put the fast ones it never saw among the fast.
TEST(TransferScore, ScoresTheRankedByPlaceAndTheRestByAModel) {
  const SearchSpace space = cube();
  std::vector<std::size_t> ranking, missing;
  for (std::size_t i = 0; i < space.size(); ++i) (i % 3 == 0 ? missing : ranking).push_back(i);
  auto faster = [&](std::size_t a, std::size_t b) { return log_time(space, a) < log_time(space, b); };
  std::sort(ranking.begin(), ranking.end(), faster);
  const ktune::TransferScore score(space, ranking);
  for (std::size_t r = 1; r < ranking.size(); ++r) ASSERT_LE(score(ranking[r - 1]), score(ranking[r])) << r;
  EXPECT_LT(score(ranking.front()), -2.5);  // the best of 667: Φ⁻¹(0.5/667) ≈ -3.2
  EXPECT_EQ(score(ranking[ranking.size() / 2 + 1]), 0.0);
  EXPECT_EQ(score(ranking.back()), 0.0);
  // Of the configs it lacks, the one it scores fastest is among the fastest 5 % of them.
  std::sort(missing.begin(), missing.end(), faster);
  const auto pick = *std::min_element(missing.begin(), missing.end(),
                                      [&](std::size_t a, std::size_t b) { return score(a) < score(b); });
  const auto rank = std::find(missing.begin(), missing.end(), pick) - missing.begin();
  EXPECT_LT(rank, 17) << "true rank among the 334 unranked configs of the one scored fastest";
}
