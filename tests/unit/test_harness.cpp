#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "ktune/harness.hpp"
#include "error_of.hpp"

namespace {

// A harness without a GPU: buffers get made-up device addresses.
class HostHarness : public ktune::Harness {
 public:
  using Harness::Harness;

 protected:
  void upload(Slot& s) override { s.device = 0x1000 * (slots().size()); }
  // "Device" memory is host memory here, so the plumbing runs without a GPU.
  void compute_on_device(Slot& s, const std::function<void(CUdeviceptr, CUstream)>& reference) override {
    std::vector<std::byte> scratch = s.host;
    reference(reinterpret_cast<CUdeviceptr>(scratch.data()), nullptr);
    s.expected = scratch;
  }
};

using ktune::test_support::error_of;

}  // namespace

TEST(Config, UnknownNameFailsLoudly) {
  ktune::Config c({"TM", "TN"}, {64, 32}, "id");
  EXPECT_EQ(c["TN"], 32);
  EXPECT_EQ(c.get_or("num_ctas", 1), 1);
  std::string m = error_of([&] { (void)c["TX"]; });
  EXPECT_NE(m.find("no parameter 'TX' (its parameters: TM, TN)"), std::string::npos) << m;
}

TEST(Launch, ArgumentsKeepTheirValuesAndAlignment) {
  char c = 'x';
  double d = 2.5;
  int i = -7;
  CUdeviceptr p = 0xdeadbeef00ULL;
  ktune::KernelArgs a = ktune::args(c, d, i, p);
  ASSERT_EQ(a.count(), 4u);
  void** ptr = a.pointers();
  EXPECT_EQ(*static_cast<char*>(ptr[0]), 'x');
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr[1]) % alignof(double), 0u);
  EXPECT_EQ(*static_cast<double*>(ptr[1]), 2.5);
  EXPECT_EQ(*static_cast<int*>(ptr[2]), -7);
  EXPECT_EQ(*static_cast<CUdeviceptr*>(ptr[3]), p);
  ktune::KernelArgs copy = a;  // pointers must point into the copy's own storage
  EXPECT_EQ(*static_cast<double*>(copy.pointers()[1]), 2.5);
  EXPECT_NE(copy.pointers()[1], a.pointers()[1]);
  EXPECT_EQ(ktune::cdiv(1000, 128), 8u);
  EXPECT_EQ(ktune::cdiv(1024, 128), 8u);
}

TEST(Harness, BuffersPassTheirDevicePointer) {
  HostHarness h({{"N", 4}});
  auto x = h.input<float>(4, ktune::fill::constant(1));
  ktune::KernelArgs a = ktune::args(x, 4);
  EXPECT_EQ(*static_cast<CUdeviceptr*>(a.pointers()[0]), x.ptr);
}

TEST(Harness, RandomFillsAreDeterministicAndInRange) {
  HostHarness h1(std::map<std::string, int64_t>{}), h2(std::map<std::string, int64_t>{});
  auto a = h1.input<float>(1000, ktune::fill::random(7, -2, 3));
  auto b = h2.input<float>(1000, ktune::fill::random(7, -2, 3));
  auto c = h2.input<float>(1000, ktune::fill::random(8, -2, 3));
  auto va = h1.host(a), vb = h2.host(b), vc = h2.host(c);
  EXPECT_TRUE(std::equal(va.begin(), va.end(), vb.begin()));
  EXPECT_FALSE(std::equal(va.begin(), va.end(), vc.begin()));
  for (float v : va) EXPECT_TRUE(v >= -2 && v < 3) << v;
  auto ints = h1.input<int32_t>(1000, ktune::fill::random(1, 0, 10));
  for (int32_t v : h1.host(ints)) EXPECT_TRUE(v >= 0 && v <= 9) << v;
}

TEST(Harness, DataFillsAndTheirErrors) {
  HostHarness h({{"N", 3}});
  auto d = h.input<int32_t>(3, ktune::fill::data(std::vector<int32_t>{4, 5, 6}));
  EXPECT_EQ(h.host(d)[2], 6);
  EXPECT_NE(
      error_of([&] { h.input<int32_t>(4, ktune::fill::data(std::vector<int32_t>{1})); }).find("one value per element"),
      std::string::npos);
  EXPECT_NE(error_of([&] { h.input<float>(0, ktune::fill::constant(0)); }).find("0 elements"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)h.key("M"); }).find("the key has only N"), std::string::npos);
  EXPECT_NE(error_of([&] { h.expect(d, [](std::span<int32_t>) {}); }).find("is an input"), std::string::npos);
}

TEST(Harness, ExpectationsStartFromTheFillAndCompareWithTolerance) {
  HostHarness h(std::map<std::string, int64_t>{});
  auto out = h.output<float>(3, ktune::fill::constant(1), {0.01, 0.1});
  h.expect(out, [](std::span<float> ref) {
    for (float& v : ref) v += 9;  // accumulate onto the fill: 10
  });
  const auto& slot = h.slots()[0];
  const float* ref = reinterpret_cast<const float*>(slot.expected.data());
  EXPECT_EQ(ref[0], 10.0f);
  auto check = [&](std::vector<float> got) {
    return slot.compare(reinterpret_cast<const std::byte*>(got.data()), slot.expected.data(), 3, slot.tolerance);
  };
  EXPECT_EQ(check({10, 10.5f, 11}).second, 0u);  // within 0.01 + 0.1 * 10
  auto [worst, bad] = check({10, 11.2f, 10});
  EXPECT_EQ(bad, 1u);
  EXPECT_NEAR(worst, 1.2, 1e-5);
  auto [nan_worst, nan_bad] = check({10, NAN, 10});
  EXPECT_EQ(nan_bad, 1u);  // NaN never passes
  EXPECT_TRUE(std::isinf(nan_worst));
}

TEST(Harness, DeviceExpectationsStartFromTheFillAndAreReadBack) {
  HostHarness h({{"N", 4}});
  auto in = h.input<float>(4, ktune::fill::constant(1));
  auto out = h.output<float>(4, ktune::fill::constant(5));
  h.expect_on_device(out, [&](ktune::Buffer<float> ref, CUstream) {
    EXPECT_EQ(ref.size, 4u);
    for (int i = 0; i < 4; ++i) ref.data()[i] += static_cast<float>(i);  // starts as the fill
  });
  const auto& s = h.slots().at(1);
  ASSERT_EQ(s.expected.size(), 4 * sizeof(float));
  const float* e = reinterpret_cast<const float*>(s.expected.data());
  EXPECT_EQ(e[0], 5.0f);
  EXPECT_EQ(e[3], 8.0f);
  std::string m = error_of([&] { h.expect_on_device(in, [](ktune::Buffer<float>, CUstream) {}); });
  EXPECT_NE(m.find("is an input"), std::string::npos) << m;
}

TEST(ParallelFor, CoversEveryIndexOnceAndPassesErrorsOn) {
  for (std::size_t n : {0u, 1u, 7u, 1000u}) {
    std::vector<std::atomic<int>> hits(n);
    ktune::parallel_for(n, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) ++hits[i];
    });
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
  }
  EXPECT_THROW(ktune::parallel_for(100,
                                   [](std::size_t b, std::size_t) {
                                     if (b == 0) throw std::runtime_error("x");
                                   }),
               std::runtime_error);
}
