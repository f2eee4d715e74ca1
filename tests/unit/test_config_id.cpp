#include <gtest/gtest.h>

#include "ktune/config_id.hpp"

using S = std::vector<std::string>;
using V = std::vector<int64_t>;

TEST(ConfigId, IndependentOfDeclarationOrder) {
  EXPECT_EQ(ktune::config_id(S{"TM", "TN", "TK"}, V{64, 32, 8}), ktune::config_id(S{"TK", "TM", "TN"}, V{8, 64, 32}));
}

TEST(ConfigId, DiffersWhenAValueOrNameDiffers) {
  auto base = ktune::config_id(S{"TM", "TN"}, V{64, 32});
  EXPECT_NE(base, ktune::config_id(S{"TM", "TN"}, V{32, 64}));
  EXPECT_NE(base, ktune::config_id(S{"TM", "TX"}, V{64, 32}));
  // Name/value boundaries are part of the hash: "T"="M64" style ambiguity cannot collide.
  EXPECT_NE(ktune::config_id(S{"A1"}, V{2}), ktune::config_id(S{"A"}, V{12}));
}

TEST(ConfigId, StableAcrossVersions) {
  // Pinned values: ids name cubins and measurements on disk, so they must never change.
  // FNV-1a 64 of "TK=8\nTM=64\nTN=32\n".
  EXPECT_EQ(ktune::config_id(S{"TM", "TN", "TK"}, V{64, 32, 8}), "ef4b25d409f4b0d1");
  EXPECT_EQ(ktune::config_id(S{"x"}, V{-1}).size(), 16u);
}
