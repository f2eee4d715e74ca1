#include <algorithm>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/strategy.hpp"

using ktune::make_exhaustive;
using ktune::make_strategy;
using Idx = std::vector<std::size_t>;

namespace {

// Everything the strategy proposes, `batch` at a time, observing each as ok.
Idx drain(ktune::Strategy& s, std::size_t batch) {
  Idx all;
  for (int guard = 0; guard < 10000 && !s.done(); ++guard) {
    for (std::size_t i : s.propose(batch)) {
      all.push_back(i);
      s.observe({i, ktune::Status::Ok, 1.0});
    }
  }
  return all;
}

}  // namespace

TEST(Exhaustive, DefaultFirstThenEnumerationOrder) {
  auto s = make_exhaustive(5, 2);
  EXPECT_EQ(s->name(), "exhaustive");
  EXPECT_FALSE(s->done());
  EXPECT_EQ(s->propose(100), (Idx{2, 0, 1, 3, 4}));
  EXPECT_TRUE(s->done());
  EXPECT_TRUE(s->propose(100).empty());
}

TEST(Exhaustive, FirstAtEitherEnd) {
  EXPECT_EQ(make_exhaustive(4, 0)->propose(10), (Idx{0, 1, 2, 3}));
  EXPECT_EQ(make_exhaustive(4, 3)->propose(10), (Idx{3, 0, 1, 2}));
  EXPECT_EQ(make_exhaustive(1, 0)->propose(10), (Idx{0}));
}

TEST(Exhaustive, Batches) {
  auto s = make_exhaustive(7, 6);
  EXPECT_EQ(s->propose(3), (Idx{6, 0, 1}));
  EXPECT_FALSE(s->done());
  EXPECT_TRUE(s->propose(0).empty());
  EXPECT_EQ(s->propose(3), (Idx{2, 3, 4}));
  EXPECT_FALSE(s->done());
  EXPECT_EQ(s->propose(3), (Idx{5}));
  EXPECT_TRUE(s->done());
}

TEST(Exhaustive, EveryIndexExactlyOnce) {
  for (std::size_t size : {1u, 2u, 3u, 10u, 117u}) {
    for (std::size_t first : {std::size_t{0}, size / 2, size - 1}) {
      for (std::size_t batch : {1u, 4u, 1000u}) {
        SCOPED_TRACE("size=" + std::to_string(size) + " first=" + std::to_string(first) +
                     " batch=" + std::to_string(batch));
        auto s = make_exhaustive(size, first, batch == 4 ? std::optional<uint64_t>(42) : std::nullopt);
        Idx all = drain(*s, batch);
        ASSERT_EQ(all.size(), size);
        EXPECT_EQ(all.front(), first);
        std::vector<int> seen(size, 0);
        for (std::size_t i : all) {
          ASSERT_LT(i, size);
          ++seen[i];
        }
        EXPECT_EQ(seen, std::vector<int>(size, 1));
      }
    }
  }
}

// Without a budget the order is the enumeration's; with one (a shuffle seed) it is random,
// the same for a seed, so that a search cut short samples the whole space.
TEST(Exhaustive, ShuffledWhenABudgetMayCutIt) {
  Idx plain = make_exhaustive(1000, 4)->propose(1000);
  Idx a = make_exhaustive(1000, 4, 1)->propose(1000), b = make_exhaustive(1000, 4, 1)->propose(1000),
      c = make_exhaustive(1000, 4, 2)->propose(1000);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(a.front(), 4u);
  EXPECT_NE(a, plain);
  // The first 50 of a shuffled order spread over the space, not its first corner.
  std::size_t above_half = 0;
  for (std::size_t k = 1; k <= 50; ++k) above_half += a[k] >= 500;
  EXPECT_GT(above_half, 10u);
  EXPECT_LT(above_half, 40u);
  std::sort(a.begin(), a.end());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], i);
  // Through make_strategy: a budget below the space, or may_be_cut, shuffles.
  static const std::vector<int64_t> rows = [] {
    std::vector<int64_t> r;
    for (int64_t v = 0; v < 100; ++v) r.push_back(v);
    return r;
  }();
  std::vector<int64_t> values(rows.begin(), rows.end());
  const ktune::SearchSpace space({{"X", values}}, rows);
  EXPECT_EQ(make_strategy("exhaustive", {space, 0, 7})->propose(5), (Idx{0, 1, 2, 3, 4}));
  EXPECT_NE(make_strategy("exhaustive", {space, 0, 7, 10})->propose(5), (Idx{0, 1, 2, 3, 4}));
  EXPECT_NE(make_strategy("exhaustive", {space, 0, 7, std::nullopt, true})->propose(5), (Idx{0, 1, 2, 3, 4}));
}

TEST(Exhaustive, EmptySpaceIsDoneAtOnce) {
  auto s = make_exhaustive(0, 0);
  EXPECT_TRUE(s->done());
  EXPECT_TRUE(s->propose(5).empty());
}

TEST(Exhaustive, RejectsBadIndices) {
  EXPECT_THROW(make_exhaustive(5, 5), ktune::Error);
  EXPECT_THROW(make_exhaustive(5, 100), ktune::Error);
  auto s = make_exhaustive(5, 0);
  EXPECT_NO_THROW(s->observe({4, ktune::Status::Crashed, 0}));
  EXPECT_THROW(s->observe({5, ktune::Status::Ok, 1.0}), ktune::Error);
}

// A space of 3 configs: one parameter with values 10, 20, 30.
const ktune::SearchSpace& three() {
  static const std::vector<int64_t> rows = {10, 20, 30};
  static const ktune::SearchSpace space({{"X", {10, 20, 30}}}, rows);
  return space;
}

TEST(MakeStrategy, ExhaustiveByName) {
  auto s = make_strategy("exhaustive", {three(), 1, 0});
  EXPECT_EQ(s->name(), "exhaustive");
  EXPECT_EQ(s->propose(10), (Idx{1, 0, 2}));
  EXPECT_THROW(make_strategy("exhaustive", {three(), 3, 0}), ktune::Error);
}

TEST(MakeStrategy, UnknownNameListsKnownOnes) {
  try {
    make_strategy("anneal", {three(), 0, 0});
    FAIL() << "expected ktune::Error";
  } catch (const ktune::Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("'anneal'"), std::string::npos) << what;
    EXPECT_NE(what.find("known: exhaustive"), std::string::npos) << what;
  }
  EXPECT_THROW(make_strategy("", {three(), 0, 0}), ktune::Error);
  EXPECT_THROW(make_strategy("Exhaustive", {three(), 0, 0}), ktune::Error);  // names are exact
}

// A 3x3 grid with the centre missing: positions, lookup and neighbourhoods.
TEST(SearchSpace, PositionsLookupAndNeighbours) {
  std::vector<int64_t> rows;
  for (int64_t a : {1, 2, 4})
    for (int64_t b : {8, 16, 32})
      if (!(a == 2 && b == 16)) rows.insert(rows.end(), {a, b});
  const ktune::SearchSpace s({{"A", {1, 2, 4}}, {"B", {8, 16, 32}}}, rows);
  ASSERT_EQ(s.size(), 8u);
  EXPECT_EQ(s.width(), 2u);
  EXPECT_EQ(s.value(3, 0), 2);  // rows: (1,8) (1,16) (1,32) (2,8) (2,32) (4,8) ...
  EXPECT_EQ(s.value(3, 1), 8);
  const uint32_t corner[] = {2, 2}, centre[] = {1, 1};
  EXPECT_EQ(s.find(corner), std::optional<std::size_t>(7));
  EXPECT_EQ(s.find(centre), std::nullopt);
  // (1,16) at index 1: adjacent (1,8), (1,32); its neighbour (2,16) is not valid.
  auto adj = s.adjacent(1);
  std::sort(adj.begin(), adj.end());
  EXPECT_EQ(adj, (Idx{0, 2}));
  // (1,8) at index 0: Hamming neighbours (1,16) (1,32) (2,8) (4,8).
  auto ham = s.hamming(0);
  std::sort(ham.begin(), ham.end());
  EXPECT_EQ(ham, (Idx{1, 2, 3, 5}));
  EXPECT_THROW(ktune::SearchSpace({{"A", {1}}}, std::vector<int64_t>{2}), ktune::Error);
}
