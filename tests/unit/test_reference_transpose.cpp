// The transpose example's host reference (kernels/transpose/transpose_reference.hpp) on
// small hand-written matrices: the harness checks every tuned config against it.
#include <gtest/gtest.h>

#include <vector>

#include "../../kernels/transpose/transpose_reference.hpp"

namespace {

TEST(ReferenceTranspose, TwoByThree) {
  // [[1 2 3], [4 5 6]] -> [[1 4], [2 5], [3 6]]
  const std::vector<float> in = {1, 2, 3, 4, 5, 6};
  std::vector<float> out(6, -1);
  transpose_reference_rows(in.data(), out.data(), 2, 3, 0, 2);
  EXPECT_EQ(out, (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(ReferenceTranspose, SingleRowBecomesAColumn) {
  const std::vector<float> in = {7, 8, 9, 10};
  std::vector<float> out(4, -1);
  transpose_reference_rows(in.data(), out.data(), 1, 4, 0, 1);
  EXPECT_EQ(out, in);  // [1, 4] and [4, 1] are the same bytes
}

TEST(ReferenceTranspose, TwiceIsTheIdentity) {
  std::vector<float> in(5 * 7);
  for (size_t k = 0; k < in.size(); ++k) in[k] = static_cast<float>(k) * 0.5f - 3;
  std::vector<float> once(in.size()), twice(in.size());
  transpose_reference_rows(in.data(), once.data(), 5, 7, 0, 5);
  transpose_reference_rows(once.data(), twice.data(), 7, 5, 0, 7);
  EXPECT_EQ(twice, in);
  EXPECT_EQ(once[1 * 5 + 3], in[3 * 7 + 1]);  // out[j][i] = in[i][j]
}

TEST(ReferenceTranspose, RowRangesWriteOnlyTheirColumns) {
  // Rows 1..2 of a 3x2 matrix fill columns 1..2 of the 2x3 output, in two calls as
  // parallel_for would make them.
  const std::vector<float> in = {1, 2, 3, 4, 5, 6};
  std::vector<float> out(6, -1);
  transpose_reference_rows(in.data(), out.data(), 3, 2, 1, 2);
  transpose_reference_rows(in.data(), out.data(), 3, 2, 2, 3);
  EXPECT_EQ(out, (std::vector<float>{-1, 3, 5, -1, 4, 6}));
}

}  // namespace
