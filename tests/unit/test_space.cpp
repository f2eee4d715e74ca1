#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "ktune/space.hpp"

using ktune::Parameter;
using ktune::Space;
using V = std::vector<int64_t>;

namespace {

Space small_space() {
  return Space({{"a", {1, 2, 3, 4, 5, 6, 7, 8}}, {"b", {1, 2, 4, 8, 16}}, {"c", {0, 1, 2}}},
               {"a*b<=32", "c==0 or a%2==0", "2 <= a+c <= 8"});
}

// Every point of the product, checked with first_violated: the slow, obvious answer.
std::vector<V> brute_force(const Space& space) {
  std::vector<V> out;
  const auto& params = space.parameters();
  std::vector<std::size_t> pos(params.size(), 0);
  while (true) {
    V values;
    for (std::size_t k = 0; k < params.size(); ++k) values.push_back(params[k].values[pos[k]]);
    if (space.first_violated(values) < 0) out.push_back(values);
    std::size_t k = params.size();
    while (k > 0 && ++pos[k - 1] == params[k - 1].values.size()) pos[--k] = 0;
    if (k == 0) break;
  }
  return out;
}

}  // namespace

TEST(Space, CountMatchesPython) {
  // Python: sum(1 for a,b,c in product(...) if a*b<=32 and (c==0 or a%2==0) and 2<=a+c<=8)
  auto e = small_space().enumerate();
  EXPECT_EQ(e.size(), 49u);
  EXPECT_EQ(small_space().product(), 120u);
}

TEST(Space, RowsInDeclarationOrderAndEqualToBruteForce) {
  Space s = small_space();
  auto e = s.enumerate();
  auto expected = brute_force(s);
  ASSERT_EQ(e.size(), expected.size());
  for (std::size_t i = 0; i < e.size(); ++i) {
    auto row = e.row(i);
    EXPECT_EQ(V(row.begin(), row.end()), expected[i]) << "row " << i;
  }
}

TEST(Space, RejectionsAccountForEveryPoint) {
  Space s = small_space();
  auto e = s.enumerate();
  uint64_t rejected = std::accumulate(e.rejected_by.begin(), e.rejected_by.end(), uint64_t{0});
  EXPECT_EQ(rejected + e.size(), s.product());
}

TEST(Space, RandomSpacesMatchBruteForce) {
  // Constraints over different subsets, so the binding order differs from declaration order.
  std::mt19937 rng(7);
  const std::vector<std::string> pool = {"x*y <= 24",     "z % 3 != 1", "w + x >= 4", "y // 2 <= z or w == 0",
                                         "2 <= z*w < 12", "x != y"};
  for (int trial = 0; trial < 30; ++trial) {
    std::vector<Parameter> params;
    for (const char* name : {"w", "x", "y", "z"}) {
      V values;
      for (int v = 0; v < 7; ++v)
        if (rng() % 3) values.push_back(v);
      if (values.empty()) values.push_back(1);
      params.push_back({name, values});
    }
    std::vector<std::string> constraints;
    for (const auto& c : pool)
      if (rng() % 2) constraints.push_back(c);
    Space s(params, constraints);
    auto e = s.enumerate();
    auto expected = brute_force(s);
    ASSERT_EQ(e.size(), expected.size()) << "trial " << trial;
    for (std::size_t i = 0; i < e.size(); ++i) {
      auto row = e.row(i);
      ASSERT_EQ(V(row.begin(), row.end()), expected[i]) << "trial " << trial << " row " << i;
    }
  }
}

TEST(Space, LimitTruncates) {
  auto e = small_space().enumerate(10);
  EXPECT_TRUE(e.truncated);
  EXPECT_FALSE(small_space().enumerate(49).truncated);
}

TEST(Space, VisitLimitGivesUpOnLateBindingConstraints) {
  // 100^3 points; a constraint on all three is checked at every one of them: 100 + 100^2 +
  // 100^3 visits. One on A alone prunes at the first level: 100 visits, then 1 + 100 + 100^2.
  std::vector<Parameter> params;
  for (const char* name : {"A", "B", "C"}) {
    Parameter p{name, {}};
    for (int v = 1; v <= 100; ++v) p.values.push_back(v);
    params.push_back(p);
  }
  const Space late(params, {"A * B * C == 6"});
  const auto whole = late.enumerate();
  EXPECT_FALSE(whole.gave_up);
  EXPECT_EQ(whole.visits, 100u + 100u * 100u + 100u * 100u * 100u);
  EXPECT_EQ(whole.size(), 9u);  // ordered triples of product 6: 3 orders of (1,1,6), 6 of (1,2,3)
  const auto cut = late.enumerate(UINT64_MAX, 50'000);
  EXPECT_TRUE(cut.gave_up);
  EXPECT_EQ(cut.visits, 50'001u);
  const Space early(params, {"A == 1", "A * B * C == 6"});
  const auto pruned = early.enumerate(UINT64_MAX, 50'000);
  EXPECT_FALSE(pruned.gave_up);
  EXPECT_EQ(pruned.visits, 100u + 100u + 100u * 100u);
  EXPECT_EQ(pruned.size(), 4u);  // (1,1,6) (1,6,1) (1,2,3) (1,3,2)
}

TEST(Space, LargeSparseSpace) {
  // 4^11 = 4,194,304 points; the first constraint alone leaves 1/64 of them.
  std::vector<Parameter> params;
  for (int k = 0; k < 11; ++k) params.push_back({"p" + std::to_string(k), {0, 1, 2, 3}});
  Space s(params, {"p0 + p1 + p2 == 0", "p3 <= p4"});
  auto e = s.enumerate();
  EXPECT_EQ(s.product(), 4194304u);
  // p0=p1=p2=0, p3<=p4 (10 of 16 pairs), 4^6 free: 10 * 4096.
  EXPECT_EQ(e.size(), 40960u);
}

TEST(Space, Errors) {
  EXPECT_THROW(Space({{"a", {1}}, {"a", {2}}}, {}), ktune::Error);
  EXPECT_THROW(Space({{"a", {}}}, {}), ktune::Error);
  EXPECT_THROW(Space({{"a", {1}}}, {"a +"}), ktune::ParseError);
  try {
    Space({{"TM", {1}}, {"TK", {1}}}, {"TM > 0", "TM * TQ <= 4"});
    FAIL() << "unknown name accepted";
  } catch (const ktune::ParseError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("constraint 2"), std::string::npos) << m;
    EXPECT_NE(m.find("column 6"), std::string::npos) << m;
    EXPECT_NE(m.find("TQ"), std::string::npos) << m;
  }
  Space div({{"a", {0, 1}}}, {"4 % a == 0"});
  EXPECT_THROW(div.enumerate(), ktune::EvalError);
}

TEST(Space, FirstViolated) {
  Space s = small_space();
  EXPECT_EQ(s.first_violated(V{8, 8, 0}), 0);
  EXPECT_EQ(s.first_violated(V{3, 1, 1}), 1);
  EXPECT_EQ(s.first_violated(V{8, 1, 2}), 2);
  EXPECT_EQ(s.first_violated(V{2, 1, 2}), -1);
}
