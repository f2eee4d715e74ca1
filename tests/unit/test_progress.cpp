#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "ktune/error.hpp"
#include "ktune/progress.hpp"

using ktune::Progress;

namespace {

// A temporary file standing in for the terminal or the build log.
class Capture {
 public:
  Capture() : f_(std::tmpfile()) {}
  ~Capture() {
    if (f_) std::fclose(f_);
  }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;

  std::FILE* file() const { return f_; }
  // Everything written so far.
  std::string text() const {
    std::fflush(f_);
    long end = std::ftell(f_);
    std::rewind(f_);
    std::string s(static_cast<std::size_t>(end), '\0');
    std::size_t got = std::fread(s.data(), 1, s.size(), f_);
    s.resize(got);
    std::fseek(f_, 0, SEEK_END);
    return s;
  }

 private:
  std::FILE* f_;
};

}  // namespace

ktune::ProgressState state(std::size_t done, double best_ms, std::string best, std::size_t compiled = 0,
                           std::size_t measured = 0) {
  ktune::ProgressState s;
  s.done = done;
  s.best_ms = best_ms;
  s.best = std::move(best);
  s.compiled = compiled;
  s.measured = measured;
  return s;
}

TEST(Progress, InteractiveRewritesOneLine) {
  Capture out;
  ASSERT_NE(out.file(), nullptr);
  Progress p("gemm", 1, out.file(), true);
  p.start_key(0, "N=1024", 117, 0.0);
  // ETA = 37 s / 37 done * 80 left = 80 s.
  p.update(state(37, 1.234, "TM=64 TN=4", 40, 37), 37.0);
  const std::string first =
      "\rgemm key 1/1 (N=1024): 37/117 configs, best 1.234 ms (TM=64 TN=4), 1.1 cubins/s, 1.0 measured/s, ETA 1:20";
  EXPECT_EQ(out.text(), first);
  // A shorter line is padded so that nothing of the longer one is left on screen.
  p.update(state(38, 1.2, "x", 40, 38), 38.0);
  const std::string second =
      "\rgemm key 1/1 (N=1024): 38/117 configs, best 1.200 ms (x), 1.1 cubins/s, 1.0 measured/s, ETA 1:19";
  ASSERT_LT(second.size(), first.size());
  EXPECT_EQ(out.text(), first + second + std::string(first.size() - second.size(), ' '));
  EXPECT_EQ(out.text().find('\n'), std::string::npos);
}

// One line across the keys: the second key's line goes on from the first's, its ETA for
// all keys from the pace of both.
TEST(Progress, OneLineAcrossKeysWithAnEtaForAll) {
  Capture out;
  Progress p("conv", 3, out.file(), true);
  p.start_key(0, "N=1", 10, 0.0);
  p.update(state(10, 2.0, "a"), 20.0);
  p.start_key(1, "N=2", 10, 20.0);
  ktune::ProgressState s = state(5, 1.5, "b", 12, 15);
  s.compiling = 3;
  s.compiling_what = "B=4 T=2";
  // This key: 10 s for 5, 5 left: 0:10. All: 0:10 + 1 key x 10 configs x (30 s / 15 done).
  EXPECT_EQ(p.line(s, 30.0),
            "conv key 2/3 (N=2): 5/10 configs, best 1.500 ms (b), compiling 3 (B=4 T=2), 0.4 cubins/s, "
            "0.5 measured/s, ETA 0:10, all keys 0:30");
  p.update(s, 30.0);
  p.finish(50.0);
  const std::string done = "conv: 3 keys, 15 configs in 0:50";
  EXPECT_TRUE(out.text().ends_with("\r" + done + std::string(p.line(s, 30.0).size() - done.size(), ' ') + "\n"))
      << out.text();
  const std::string text = out.text();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
}

// A time budget per key ends a key before its configs would: the ETAs take the sooner.
TEST(Progress, ATimeBudgetBoundsTheEtas) {
  Capture out;
  Progress p("conv", 3, out.file(), true);
  p.start_key(0, "N=1", 100, 0.0, 60.0);
  // 10 configs in 20 s: 90 left would take 3:00, but 40 s of the minute are left; the two
  // keys after it a minute each.
  const std::string l = p.line(state(10, 2.0, "a"), 20.0);
  EXPECT_TRUE(l.ends_with("ETA 0:40, all keys 2:40")) << l;
  // Without one, the configs decide.
  p.start_key(0, "N=1", 100, 0.0);
  const std::string c = p.line(state(10, 2.0, "a"), 20.0);
  EXPECT_TRUE(c.ends_with("ETA 3:00, all keys 9:40")) << c;
  // Before any config: the time left alone.
  p.start_key(0, "N=1", 100, 0.0, 60.0);
  const std::string z = p.line(state(0, -1, ""), 5.0);
  EXPECT_TRUE(z.ends_with("ETA 0:55, all keys 2:55")) << z;
}

// In a build: this kernel's place among the tune steps, and an ETA for the steps still to
// run at this kernel's pace per config, each bounded by its time budget.
TEST(Progress, ThePlaceInTheBuildAndItsEta) {
  Capture out;
  Progress p("conv", 2, out.file(), true);
  ktune::BuildTunes b;
  b.position = 2;
  b.total = 4;
  b.later = {{3, 20, std::nullopt}, {5, 100, 30.0}};
  p.set_build(b);
  p.start_key(0, "N=1", 10, 0.0);
  // 2 s a config: this kernel 0:10 + 10 x 2 s = 0:30; later 3 x 20 x 2 s = 120 s and
  // 5 keys x min(200 s, 30 s) = 150 s: 0:30 + 4:30 = 5:00.
  const std::string l = p.line(state(5, 1.0, "a"), 10.0);
  EXPECT_TRUE(l.ends_with("ETA 0:10, all keys 0:30; build: kernel 2/4, ETA 5:00")) << l;
  // A build of one tune step says nothing of the build.
  b.total = 1;
  b.position = 1;
  p.set_build(b);
  EXPECT_TRUE(p.line(state(5, 1.0, "a"), 10.0).ends_with("all keys 0:30")) << p.line(state(5, 1.0, "a"), 10.0);
}

TEST(Progress, NothingYet) {
  Capture out;
  Progress p("k", 1, out.file(), true);
  p.start_key(0, "N=1", 10, 0.0);
  p.update(state(0, -1, ""), 0.0);
  EXPECT_EQ(out.text(), "\rk key 1/1 (N=1): 0/10 configs, best -, 0.0 cubins/s, 0.0 measured/s, ETA ?");
}

TEST(Progress, HoursFormat) {
  Progress p("big", 1, stderr, false);
  p.start_key(0, "N=1", 2, 0.0);
  EXPECT_TRUE(p.line(state(1, 3.0, ""), 3725.0).ends_with("best 3.000 ms, 0.0 cubins/s, 0.0 measured/s, ETA 1:02:05"));
}

TEST(Progress, QuietWhenNotATerminal) {
  Capture out;
  Progress p("t", 2, out.file());  // a file is not a terminal
  p.start_key(0, "N=1", 3, 0.0);
  p.update(state(1, -1, ""), 0.0);
  p.update(state(3, 1.0, "a"), 1.0);
  p.finish(2.0);
  EXPECT_EQ(out.text(), "");
}

TEST(Progress, NullStreamIsAnError) { EXPECT_THROW(Progress("t", 3, nullptr), ktune::Error); }
