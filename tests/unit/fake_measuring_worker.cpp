// A stand-in for the measuring worker (`ktune --worker`) for the tuner tests on machines
// without a GPU. It speaks the real worker's protocol and fakes each config's outcome from
// its parameters:
//   MODE  0 ok (times around TIME * 0.1 ms), 1 wrong-result, 2 crash (SIGSEGV, no reply),
//         3 hang, 4 resource, 5 sticky error (reply "crashed", then exit 3); absent: 0
//   TIME  time scale of MODE 0; absent: 1
//   FATAL 1: the launch template fails, as with a misspelt parameter ({"fatal": ...})
// Environment: KTUNE_FAKE_GPUS="A,B" → the machine has GPUs named A and B (default: one
// "Fake GPU"), of which the worker sees those CUDA_VISIBLE_DEVICES lists;
// KTUNE_FAKE_BAD_GPU="<n>:crash|hang|nostart" → a worker that sees GPU n first crashes or
// hangs on every measurement, or dies before its ready line;
// KTUNE_FAKE_NO_GPU set → the ready line says there is no GPU;
// KTUNE_FAKE_STARTS=<file> → one line appended to it at every start; KTUNE_FAKE_DELAY_MS
// and KTUNE_FAKE_EVENTS: see run().
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "ktune/config.hpp"
#include "ktune/error.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/measurement.hpp"
#include "ktune/worker_protocol.hpp"
#include "ktune/stopping_rule.hpp"

namespace ktune {
namespace {

using json = nlohmann::json;

constexpr double kSeconds = 0.004;  // what each config "took": keeps the tuner's timeouts short

json phases() { return {{"harness", 0.0}, {"load", 0.001}, {"verify", 0.001}, {"measure", 0.002}}; }

json finish(Measurement m) {
  m.seconds = kSeconds;
  json reply = m.to_json();
  reply["phases"] = phases();
  return reply;
}

[[noreturn]] void crash() {
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);  // a test crash should leave no core file
  std::signal(SIGSEGV, SIG_DFL);       // past any sanitizer's handler: a real death
  std::raise(SIGSEGV);
  std::abort();  // not reached
}

[[noreturn]] void hang() {
  for (;;) ::pause();
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t comma; (comma = list.find(',', start)) != std::string::npos; start = comma + 1)
    out.push_back(list.substr(start, comma - start));
  out.push_back(list.substr(start));
  return out;
}

// The reply to one measure request, or no return at all (crash, hang, sticky exit).
json measure(WorkerChannel& channel, const MeasureRequest& request) {
  const Config config(request.names, request.values, request.config_id);
  // The real worker's launch template throws on an unknown name; that is fatal.
  if (config.get_or("FATAL", 0) == 1) {
    try {
      (void)config["TX"];
    } catch (const Error& e) {
      return {{"fatal", e.what()}};
    }
  }

  Measurement m;
  switch (config.get_or("MODE", 0)) {
    case 0: {
      const double base = 0.1 * static_cast<double>(config.get_or("TIME", 1));
      // A small deterministic jitter, within ±0.2 %: a realistic sample set, same every run.
      for (int i = 0; i < 10; ++i) m.samples_ms.push_back(base * (1.0 + 0.001 * (i % 5 - 2)));
      m.median_ms = summarize(m.samples_ms).median;
      return finish(m);
    }
    case 1:
      m.status = Status::WrongResult;
      m.max_error = 0.5;
      m.message = "fake: 7 of 1000 output elements beyond tolerance; max error 0.5";
      return finish(m);
    case 2:
      crash();
    case 3:
      hang();
    case 4:
      m.status = Status::Resource;
      m.message = "fake: 99999 bytes of shared memory a block; this GPU allows 232448";
      return finish(m);
    case 5:
      // Like an illegal address: the context is lost, so reply, then end the process.
      m.status = Status::Crashed;
      m.message = "fake: kernel: CUDA_ERROR_ILLEGAL_ADDRESS";
      channel.reply(finish(m));
      std::exit(3);
    default:
      return {{"fatal", "fake: unknown MODE " + std::to_string(config.get_or("MODE", 0))}};
  }
}

int run(int reply_fd) {
  if (const char* starts = std::getenv("KTUNE_FAKE_STARTS")) std::ofstream(starts, std::ios::app) << ::getpid() << "\n";
  WorkerChannel channel(reply_fd);
  if (std::getenv("KTUNE_FAKE_NO_GPU")) {
    channel.reply(ReadyReply{false, "fake: no GPU", {}, 0}.to_json());
    return 0;
  }
  // The machine's GPUs, and which of them this worker sees (CUDA's rule: the listed
  // indices up to the first that does not exist).
  std::vector<std::string> machine =
      split(std::getenv("KTUNE_FAKE_GPUS") ? std::getenv("KTUNE_FAKE_GPUS") : "Fake GPU");
  std::vector<int> visible;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v && *v) {
    for (const auto& entry : split(v)) {
      const int n = std::atoi(entry.c_str());
      if (entry.empty() || n < 0 || n >= static_cast<int>(machine.size())) break;
      visible.push_back(n);
    }
  } else {
    for (int n = 0; n < static_cast<int>(machine.size()); ++n) visible.push_back(n);
  }
  if (visible.empty()) {
    channel.reply(ReadyReply{false, "fake: CUDA_VISIBLE_DEVICES hides every GPU", {}, 0}.to_json());
    return 0;
  }
  const int physical = visible[0];
  std::string bad_mode;
  if (const char* bad = std::getenv("KTUNE_FAKE_BAD_GPU")) {
    const std::string b = bad;
    if (std::atoi(b.c_str()) == physical) bad_mode = b.substr(b.find(':') + 1);
  }
  if (bad_mode == "nostart") std::exit(3);
  GpuIdentity gpu{.name = machine[physical],
                  .cc_major = 9,
                  .cc_minor = 0,
                  .sm_count = 132,
                  .driver_version = 13000,
                  .l2_bytes = 50331648};
  channel.reply(ReadyReply{true, "", gpu, static_cast<int>(visible.size())}.to_json());
  while (auto request = channel.next_request()) {
    if (request_op(*request) == "prepare") {
      // KTUNE_FAKE_HARNESS=crash|fail: the harness dies or throws while making the key.
      const std::string harness = std::getenv("KTUNE_FAKE_HARNESS") ? std::getenv("KTUNE_FAKE_HARNESS") : "";
      if (harness == "crash") std::abort();
      if (harness == "fail") {
        channel.reply({{"fatal", "fake: the reference failed"}});
        continue;
      }
      channel.reply({{"prepared", true}, {"phases", {{"harness", 0.0}}}});
      continue;
    }
    if (request_op(*request) != "measure") {
      channel.reply({{"fatal", "fake: unknown op " + request_op(*request)}});
      continue;
    }
    // KTUNE_FAKE_DELAY_MS: each measurement takes this long, so a test can kill the tuner
    // in the middle of a run.
    if (const char* delay = std::getenv("KTUNE_FAKE_DELAY_MS"))
      ::usleep(static_cast<useconds_t>(std::atoi(delay)) * 1000);
    // KTUNE_FAKE_EVENTS=<file>: "measure <config id>" appended per request, for tests of
    // what happens in which order.
    if (const char* events = std::getenv("KTUNE_FAKE_EVENTS"))
      std::ofstream(events, std::ios::app)
          << "measure " << MeasureRequest::from_json(*request).config_id << " gpu " << physical << "\n";
    if (bad_mode == "crash") crash();
    if (bad_mode == "hang") hang();
    channel.reply(measure(channel, MeasureRequest::from_json(*request)));
  }
  return 0;
}

}  // namespace
}  // namespace ktune

int main(int argc, char** argv) {
  try {
    return ktune::run(ktune::WorkerChannel::reply_fd_from_args(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "fake_measuring_worker: " << e.what() << "\n";
    return 2;
  }
}
