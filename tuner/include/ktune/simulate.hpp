#pragma once
// Runs a search strategy against a recorded space: each config the strategy proposes is
// answered from the recording instead of being compiled and measured. Deterministic: the
// same recording, strategy, budget, seed and DEFAULT give the same evaluations.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ktune/measurement.hpp"
#include "ktune/replay.hpp"
#include "ktune/strategy.hpp"

namespace ktune {

struct Evaluation {
  std::size_t index = 0;  // the config, in the space's order
  Status status = Status::Ok;
  double time_ms = 0;             // 0 unless status is ok
  std::optional<double> best_ms;  // fastest time so far, this evaluation included
};

struct SimulationResult {
  std::string strategy;                 // the name it ran under ("default" resolved)
  std::vector<Evaluation> evaluations;  // in the order the strategy proposed them
  std::optional<std::size_t> best_index;
  std::optional<double> best_ms;
};

// Told of each evaluation as it happens (`n` counts from 1: best_ms is the best after n).
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void evaluation(const ReplaySpace& space, std::size_t n, const Evaluation& e) = 0;
};

// One trace line: {"n", "config": {name: value}, "time_ms" (null unless ok), "status",
// "best_ms" (null until something was timed)}, fields in that order.
nlohmann::ordered_json trace_record(const ReplaySpace& space, std::size_t n, const Evaluation& e);

// Writes trace_record() as JSON lines.
class JsonlTrace : public TraceSink {
 public:
  explicit JsonlTrace(std::ostream& out) : out_(out) {}
  void evaluation(const ReplaySpace& space, std::size_t n, const Evaluation& e) override;

 private:
  std::ostream& out_;
};

// Makes `strategy` (make_strategy; "default" means default_strategy_name()) for `space`
// with this seed, the budget and `first` as the DEFAULT config, then proposes one config
// at a time and observes its recorded outcome (failures with their status and time 0)
// until `budget` evaluations (at most the space's size) or the strategy is done. With
// `in_flight` above 1, proposals run that far ahead of the results, as in the tuner, whose
// compile pool takes a proposal whenever a slot frees: a result is observed (oldest first)
// only once `in_flight` proposals wait for theirs. Throws Error when the strategy breaks
// its contract: proposes an index twice or out of range, or more than it was asked for.
// `prior`: configs of this space other measurements found fastest, best first
// (StrategyContext::prior, ktune/prior.hpp).
SimulationResult simulate(const ReplaySpace& space, const std::string& strategy, std::size_t budget, uint64_t seed,
                          TraceSink* trace = nullptr, std::size_t first = 0, std::size_t in_flight = 1,
                          const std::vector<std::size_t>& prior = {});

// The same with a strategy made by the caller (which sets its seed and DEFAULT).
SimulationResult simulate(const ReplaySpace& space, Strategy& strategy, std::size_t budget, TraceSink* trace = nullptr,
                          std::size_t in_flight = 1);

}  // namespace ktune
