#include <gtest/gtest.h>

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

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(Progress, InteractiveRewritesOneLine) {
  Capture out;
  ASSERT_NE(out.file(), nullptr);
  Progress p("gemm", 117, out.file(), true);
  // ETA = 37 s / 37 done * 80 left = 80 s.
  p.update(37, 1.234, "cfgabcdef", 37.0);
  const std::string first = "\rgemm: 37/117 configs, best 1.234 ms (cfgabcdef), ETA 1:20";
  EXPECT_EQ(out.text(), first);
  // A shorter line is padded so that nothing of the longer one is left on screen.
  p.update(38, 1.2, "x", 38.0);
  const std::string second = "\rgemm: 38/117 configs, best 1.200 ms (x), ETA 1:19";
  ASSERT_LT(second.size(), first.size());
  EXPECT_EQ(out.text(), first + second + std::string(first.size() - second.size(), ' '));
  EXPECT_EQ(out.text().find('\n'), std::string::npos);
}

TEST(Progress, InteractiveFinishEndsTheLine) {
  Capture out;
  Progress p("gemm", 117, out.file(), true);
  p.update(117, 0.5, "best", 83.0);
  const std::string last = "\rgemm: 117/117 configs, best 0.500 ms (best), ETA 0:00";
  EXPECT_EQ(out.text(), last);
  p.finish(83.2);
  const std::string done = "\rgemm: 117/117 configs in 1:23";
  EXPECT_EQ(out.text(), last + done + std::string(last.size() - done.size(), ' ') + "\n");
}

TEST(Progress, NothingYet) {
  Capture out;
  Progress p("k", 10, out.file(), true);
  p.update(0, -1, "", 0.0);
  EXPECT_EQ(out.text(), "\rk: 0/10 configs, best -, ETA ?");
}

TEST(Progress, PlainLinesAreThrottled) {
  Capture out;
  Progress p("conv", 20, out.file(), false);
  // One config a second: lines at 0 s, 5 s and 10 s only.
  for (std::size_t done = 1; done <= 13; ++done)
    p.update(done, 2.0, "a", static_cast<double>(done - 1));
  EXPECT_EQ(out.text(),
            "conv: 1/20 configs, best 2.000 ms (a), ETA 0:00\n"    // 0/1*19
            "conv: 6/20 configs, best 2.000 ms (a), ETA 0:12\n"    // 5/6*14 = 11.7
            "conv: 11/20 configs, best 2.000 ms (a), ETA 0:08\n");  // 10/11*9 = 8.2
  // The last config always gets its line, however soon after the previous one.
  p.update(20, 1.5, "b", 10.5);
  p.finish(10.6);
  const std::string text = out.text();
  EXPECT_EQ(count(text, "\n"), 5u);
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_NE(text.find("conv: 20/20 configs, best 1.500 ms (b), ETA 0:00\n"), std::string::npos);
  EXPECT_TRUE(text.ends_with("conv: 20/20 configs in 0:11\n")) << text;
}

TEST(Progress, HoursFormat) {
  Capture out;
  Progress p("big", 2, out.file(), false);
  p.update(1, 3.0, "", 3725.0);  // ETA 3725 s; no id, no parentheses
  p.finish(7450.0);
  EXPECT_EQ(out.text(),
            "big: 1/2 configs, best 3.000 ms, ETA 1:02:05\n"
            "big: 1/2 configs in 2:04:10\n");
}

TEST(Progress, DefaultModeFollowsTheStream) {
  Capture out;
  Progress p("t", 3, out.file());  // a file is not a terminal: plain lines
  p.update(1, -1, "", 0.0);
  EXPECT_EQ(out.text(), "t: 1/3 configs, best -, ETA 0:00\n");
}

TEST(Progress, NullStreamIsAnError) {
  EXPECT_THROW(Progress("t", 3, nullptr), ktune::Error);
  EXPECT_THROW(Progress("t", 3, nullptr, false), ktune::Error);
}
