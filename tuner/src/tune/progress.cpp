#include "ktune/progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include <unistd.h>

#include "ktune/error.hpp"

namespace ktune {
namespace {

// A build log gets a line at most this often: enough to see it move, not enough to flood.
constexpr double kPlainEverySeconds = 5.0;

// m:ss, or h:mm:ss from one hour up; "?" when there is no sensible value.
std::string format_duration(double s) {
  if (!std::isfinite(s)) return "?";
  long long t = std::llround(std::max(0.0, s));
  char buf[48];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", t / 60, t % 60);
  return buf;
}

std::FILE* checked(std::FILE* out) {
  if (!out) throw Error("Progress: output stream is null (pass stderr to report progress)");
  return out;
}

}  // namespace

Progress::Progress(std::string label, std::size_t total, std::FILE* out)
    : Progress(std::move(label), total, out, isatty(fileno(checked(out))) != 0) {}

Progress::Progress(std::string label, std::size_t total, std::FILE* out, bool interactive)
    : label_(std::move(label)), total_(total), out_(checked(out)), interactive_(interactive) {}

void Progress::update(std::size_t done, double best_ms, const std::string& best,
                      double elapsed_s) {
  done_ = done;
  const bool last = done >= total_;
  if (!interactive_ && !last && elapsed_s - last_print_s_ < kPlainEverySeconds) return;
  last_print_s_ = elapsed_s;

  std::string line = label_ + ": " + std::to_string(done) + "/" + std::to_string(total_) +
                     " configs, best ";
  if (best_ms < 0) {
    line += "-";
  } else {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.3f ms", best_ms);
    line += ms;
    if (!best.empty()) line += " (" + (best.size() > 80 ? best.substr(0, 77) + "..." : best) + ")";
  }
  const std::size_t left = last ? 0 : total_ - done;
  line += ", ETA " + (done == 0 ? std::string("?")
                                : format_duration(elapsed_s / static_cast<double>(done) *
                                                  static_cast<double>(left)));

  if (interactive_) {
    // No newline: the next update returns to column 0 and overwrites; spaces blank any
    // tail left by a longer previous line.
    const std::size_t width = line.size();
    line.append(last_width_ > width ? last_width_ - width : 0, ' ');
    last_width_ = width;
    std::fprintf(out_, "\r%s", line.c_str());
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
}

void Progress::finish(double elapsed_s) {
  std::string line = label_ + ": " + std::to_string(done_) + "/" + std::to_string(total_) +
                     " configs in " + format_duration(elapsed_s);
  if (interactive_) {
    const std::size_t width = line.size();
    line.append(last_width_ > width ? last_width_ - width : 0, ' ');
    line.insert(0, "\r");
    last_width_ = 0;
  }
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

}  // namespace ktune
