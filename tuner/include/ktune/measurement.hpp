#pragma once
// One config measured on one key on one GPU: what the worker reports and the DB keeps.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ktune {

// Statuses, as written in the DB and the summary:
//   ok             verified and timed
//   compile-failed the cubin did not build (from the compile record)
//   resource       cannot launch on this GPU (block too large, shared memory over the
//                  limit, cluster not schedulable); refused without a launch
//   launch-failed  the launch returned an error that did not poison the context
//   crashed        the worker died or hit a sticky error (illegal address, trap)
//   timed-out      the worker did not answer within the config's time limit
//   wrong-result   the output did not match the reference (max_error says by how much)
enum class Status { Ok, CompileFailed, Resource, LaunchFailed, Crashed, TimedOut, WrongResult };

const char* to_string(Status s);
Status status_from_string(const std::string& s);  // throws Error on an unknown name

// What the driver says of a loaded kernel.
struct Resources {
  int registers = 0;
  int static_shared_bytes = 0;
  int local_bytes = 0;  // per thread; > 0 usually means spills
  int max_threads_per_block = 0;
};

struct Measurement {
  Status status = Status::Ok;
  std::vector<double> samples_ms;  // every timed sample, in order
  double median_ms = 0;            // of samples_ms; 0 unless status is ok
  bool abandoned = false;          // stopped early: clearly slower than the best so far
  double max_error = 0;            // largest |out - ref| seen (wrong-result, and ok)
  Resources resources;
  std::string message;  // the reason, for any status but ok
  double seconds = 0;   // wall time spent on this config (load+verify+measure)
  double at = 0;        // when it was recorded, Unix seconds (0: not known)

  nlohmann::json to_json() const;
  static Measurement from_json(const nlohmann::json& j);  // throws Error on malformed input
};

}  // namespace ktune
