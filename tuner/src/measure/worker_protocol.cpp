#include "ktune/worker_protocol.hpp"

#include <cerrno>
#include <iostream>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

#include "ktune/error.hpp"
#include "ktune/text.hpp"

namespace ktune {

using nlohmann::json;

json ReadyReply::to_json() const {
  if (!ready) return {{"ready", false}, {"why", why}};
  return {{"ready", true}, {"gpu", gpu.to_json()}, {"visible_gpus", visible_gpus}};
}

ReadyReply ReadyReply::from_json(const json& j) {
  ReadyReply r;
  r.ready = j.value("ready", false);
  if (!r.ready) {
    r.why = j.value("why", std::string("no GPU"));
    return r;
  }
  r.gpu = GpuIdentity::from_json(j.at("gpu"));
  r.visible_gpus = std::max(1, j.value("visible_gpus", 1));
  return r;
}

json PrepareRequest::to_json() const { return {{"op", "prepare"}, {"key", key}}; }

json MeasureRequest::to_json() const {
  return {{"op", "measure"},
          {"key", key},
          {"entry", entry},
          {"config", {{"id", config_id}, {"names", names}, {"values", values}, {"cubin", cubin}}},
          {"rule",
           {{"min_samples", rule.min_samples},
            {"max_samples", rule.max_samples},
            {"target_rel_ci", rule.target_rel_ci},
            {"max_seconds", rule.max_seconds},
            {"abandon_factor", rule.abandon_factor},
            {"warmup", warmup}}},
          {"best_ms", best_ms}};
}

MeasureRequest MeasureRequest::from_json(const json& j) {
  MeasureRequest r;
  r.key = j.at("key").get<Key>();
  r.entry = j.at("entry").get<std::string>();
  const json& c = j.at("config");
  r.config_id = c.at("id").get<std::string>();
  r.names = c.at("names").get<std::vector<std::string>>();
  r.values = c.at("values").get<std::vector<int64_t>>();
  r.cubin = c.at("cubin").get<std::string>();
  const json& rule = j.at("rule");
  r.rule.min_samples = rule.at("min_samples").get<std::size_t>();
  r.rule.max_samples = rule.at("max_samples").get<std::size_t>();
  r.rule.target_rel_ci = rule.at("target_rel_ci").get<double>();
  r.rule.max_seconds = rule.at("max_seconds").get<double>();
  r.rule.abandon_factor = rule.at("abandon_factor").get<double>();
  r.warmup = rule.value("warmup", 2);
  r.best_ms = j.value("best_ms", -1.0);
  return r;
}

std::string request_op(const json& request) { return request.value("op", std::string()); }

WorkerChannel::WorkerChannel(int reply_fd) : reply_fd_(reply_fd) {
  if (reply_fd < 0 || ::fcntl(reply_fd, F_GETFD) < 0)
    throw Error("worker: no usable reply fd (" + std::to_string(reply_fd) +
                "); run it from ktune, which passes --reply-fd=N");
  // Programs this worker execs must not hold the reply pipe open: the tuner sees the
  // worker's death as EOF on it.
  ::fcntl(reply_fd, F_SETFD, FD_CLOEXEC);
}

std::optional<json> WorkerChannel::next_request() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank line
    json request = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (request.is_discarded()) throw Error("worker: malformed request line (not JSON): " + line.substr(0, 200));
    return request;
  }
  return std::nullopt;
}

void WorkerChannel::reply(const json& j) {
  std::string line = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(reply_fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error("worker: cannot write reply to fd " + std::to_string(reply_fd_) + ": " +
                  errno_text(n < 0 ? errno : EIO));
    done += static_cast<std::size_t>(n);
  }
}

int WorkerChannel::reply_fd_from_args(int argc, char** argv) {
  static constexpr std::string_view kPrefix = "--reply-fd=";
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i] ? argv[i] : "";
    if (!arg.starts_with(kPrefix)) continue;
    std::string_view digits = arg.substr(kPrefix.size());
    if (digits.empty() || digits.size() > 9) return -1;
    int fd = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return -1;
      fd = fd * 10 + (c - '0');
    }
    return fd;
  }
  return -1;
}

}  // namespace ktune
