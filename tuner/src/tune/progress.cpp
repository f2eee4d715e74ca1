#include "ktune/progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include <sys/ioctl.h>
#include <unistd.h>

#include "ktune/error.hpp"

namespace ktune {
namespace {

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

std::string rate(double n, double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", seconds > 0 ? n / seconds : 0.0);
  return buf;
}

// The sooner of an estimate (NaN: none yet) and a bound, when there is one.
double sooner(double estimate, std::optional<double> bound) {
  if (!bound) return estimate;
  return std::isnan(estimate) ? *bound : std::min(estimate, *bound);
}

std::string shorten(const std::string& s, std::size_t max) { return s.size() > max ? s.substr(0, max - 3) + "..." : s; }

std::FILE* checked(std::FILE* out) {
  if (!out) throw Error("Progress: output stream is null (pass stderr to report progress)");
  return out;
}

}  // namespace

Progress::Progress(std::string kernel, std::size_t keys, std::FILE* out)
    : Progress(std::move(kernel), keys, out, isatty(fileno(checked(out))) != 0) {
  winsize ws{};
  if (interactive_ && ioctl(fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) width_ = ws.ws_col - 1;
}

Progress::Progress(std::string kernel, std::size_t keys, std::FILE* out, bool interactive)
    : kernel_(std::move(kernel)), keys_(keys), out_(checked(out)), interactive_(interactive) {}

void Progress::start_key(std::size_t index, std::string key, std::size_t planned, double elapsed_s,
                         std::optional<double> seconds) {
  seconds_ = seconds;
  done_before_ += done_;
  done_ = 0;
  key_index_ = index;
  key_ = std::move(key);
  planned_ = planned;
  key_start_s_ = elapsed_s;
}

std::string Progress::line(const ProgressState& s, double elapsed_s) const {
  std::string l = kernel_ + " key " + std::to_string(key_index_ + 1) + "/" + std::to_string(keys_) + " (" +
                  shorten(key_, 60) + "): " + std::to_string(s.done) + "/" + std::to_string(planned_) +
                  " configs, best ";
  if (s.best_ms < 0) {
    l += "-";
  } else {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.3f ms", s.best_ms);
    l += ms;
    if (!s.best.empty()) l += " (" + shorten(s.best, 60) + ")";
  }
  if (s.compiling > 0)
    l += ", compiling " + std::to_string(s.compiling) +
         (s.compiling_what.empty() ? "" : " (" + shorten(s.compiling_what, 60) + ")");
  l += ", " + rate(static_cast<double>(s.compiled), elapsed_s) + " cubins/s, " +
       rate(static_cast<double>(s.measured), elapsed_s) + " measured/s";
  // ETAs from the budget at the pace so far: this key's, then every key's.
  const double key_s = elapsed_s - key_start_s_;
  const std::size_t left = s.done >= planned_ ? 0 : planned_ - s.done;
  double key_eta = s.done == 0 ? NAN : key_s / static_cast<double>(s.done) * static_cast<double>(left);
  const std::size_t all_done = done_before_ + s.done;
  const double per_config = all_done == 0 ? NAN : elapsed_s / static_cast<double>(all_done);
  // A key's configs at this pace, or its time budget when that ends it sooner.
  const auto key_seconds = [&](std::size_t configs, std::optional<double> budget) {
    return sooner(static_cast<double>(configs) * per_config, budget);
  };
  if (seconds_) key_eta = sooner(key_eta, std::max(0.0, *seconds_ - key_s));
  const double all_eta = key_eta + static_cast<double>(keys_ - key_index_ - 1) * key_seconds(planned_, seconds_);
  l += ", ETA " + format_duration(key_eta);
  if (keys_ > key_index_ + 1) l += ", all keys " + format_duration(all_eta);
  if (build_.total > 1 && build_.position > 0) {
    double later = 0;
    for (const TunePlan& t : build_.later)
      later += static_cast<double>(t.keys) * key_seconds(t.evaluations_per_key, t.seconds_per_key);
    l += "; build: kernel " + std::to_string(build_.position) + "/" + std::to_string(build_.total) + ", ETA " +
         format_duration(all_eta + later);
  }
  if (width_ > 0 && l.size() > width_) l = l.substr(0, width_ - 3) + "...";
  return l;
}

void Progress::update(const ProgressState& s, double elapsed_s) {
  done_ = s.done;
  if (!interactive_) return;
  std::string l = line(s, elapsed_s);
  // No newline: the next update returns to column 0 and overwrites; spaces blank any tail
  // left by a longer previous line.
  const std::size_t width = l.size();
  l.append(last_width_ > width ? last_width_ - width : 0, ' ');
  last_width_ = width;
  std::fprintf(out_, "\r%s", l.c_str());
  std::fflush(out_);
}

void Progress::finish(double elapsed_s) {
  if (!interactive_) return;
  std::string l = kernel_ + ": " + std::to_string(keys_) + (keys_ == 1 ? " key, " : " keys, ") +
                  std::to_string(done_before_ + done_) + " configs in " + format_duration(elapsed_s);
  const std::size_t width = l.size();
  l.append(last_width_ > width ? last_width_ - width : 0, ' ');
  last_width_ = 0;
  std::fprintf(out_, "\r%s\n", l.c_str());
  std::fflush(out_);
}

}  // namespace ktune
