#pragma once
// What the tuner and its measuring worker say to each other, one JSON line each way (the
// tuner's side of the channel: WorkerProcess, worker_process.hpp; the worker's: WorkerChannel,
// below). Both sides write and read messages through these
// types only, so a field is named in one place.
//
//   worker, once started:  ReadyReply
//   tuner:  PrepareRequest  → worker: {"prepared": true, "phases": {...}} or {"fatal": why}
//   tuner:  MeasureRequest  → worker: a Measurement (+ "phases"), or {"fatal": why}
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/gpu_identity.hpp"
#include "ktune/key.hpp"
#include "ktune/stopping_rule.hpp"

namespace ktune {

// The worker's first line: whether it has a GPU, which one, and how many it sees.
struct ReadyReply {
  bool ready = false;
  std::string why;  // when not ready
  GpuIdentity gpu;
  int visible_gpus = 1;

  nlohmann::json to_json() const;
  static ReadyReply from_json(const nlohmann::json& j);
};

// Build the harness (inputs, references) for one key.
struct PrepareRequest {
  Key key;

  nlohmann::json to_json() const;
};

// Measure one compiled config on `key`.
struct MeasureRequest {
  Key key;
  std::string entry;  // the extern "C" kernel function
  std::string config_id;
  std::vector<std::string> names;
  std::vector<int64_t> values;
  std::string cubin;  // path
  StoppingRule rule;
  int warmup = 2;
  double best_ms = -1;  // the best so far (> 0): a config clearly slower is abandoned

  nlohmann::json to_json() const;
  static MeasureRequest from_json(const nlohmann::json& j);
};

// A request's op: "prepare", "measure", or what else a test's worker understands.
std::string request_op(const nlohmann::json& request);

// The worker side: reads requests from stdin, writes each reply as one line on `reply_fd`.
class WorkerChannel {
 public:
  explicit WorkerChannel(int reply_fd);
  std::optional<nlohmann::json> next_request();  // nullopt at end of input
  void reply(const nlohmann::json& j);
  // "--reply-fd=N" in argv → N, else -1.
  static int reply_fd_from_args(int argc, char** argv);

 private:
  int reply_fd_;
};

}  // namespace ktune
