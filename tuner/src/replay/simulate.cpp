#include "ktune/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>

#include <nlohmann/json.hpp>

#include "ktune/error.hpp"
#include "ktune/strategy.hpp"

namespace ktune {

nlohmann::ordered_json trace_record(const ReplaySpace& space, std::size_t n, const Evaluation& e) {
  using nlohmann::ordered_json;
  ordered_json line = ordered_json::object();
  line["n"] = n;
  line["config"] = space.config(e.index);
  line["time_ms"] = e.status == Status::Ok ? ordered_json(e.time_ms) : ordered_json(nullptr);
  line["status"] = to_string(e.status);
  line["best_ms"] = e.best_ms ? ordered_json(*e.best_ms) : ordered_json(nullptr);
  return line;
}

void JsonlTrace::evaluation(const ReplaySpace& space, std::size_t n, const Evaluation& e) {
  out_ << trace_record(space, n, e).dump() << "\n";
}

SimulationResult simulate(const ReplaySpace& space, Strategy& strategy, std::size_t budget, TraceSink* trace,
                          std::size_t in_flight) {
  const std::size_t size = space.size();
  budget = std::min(budget, size);
  in_flight = std::max<std::size_t>(in_flight, 1);
  SimulationResult result;
  result.strategy = strategy.name();
  result.evaluations.reserve(budget);
  std::vector<bool> proposed(size, false);
  std::size_t proposals = 0;
  std::deque<std::size_t> waiting;  // proposed, result not yet observed, oldest first
  auto broke = [&](const std::string& what) {
    return Error("simulate: strategy \"" + result.strategy + "\" " + what + " at proposal " +
                 std::to_string(proposals + 1) + "; strategies must propose each config of [0, size) at most once");
  };
  for (;;) {
    while (waiting.size() < in_flight && proposals < budget && !strategy.done()) {
      const std::vector<std::size_t> batch = strategy.propose(1);
      if (batch.empty()) break;  // nothing left to propose though not done: stop, not spin
      if (batch.size() > 1) throw broke("proposed " + std::to_string(batch.size()) + " configs when asked for 1");
      const std::size_t i = batch.front();
      if (i >= size) throw broke("proposed config " + std::to_string(i) + " of " + std::to_string(size));
      if (proposed[i]) throw broke("proposed config " + std::to_string(i) + " again");
      proposed[i] = true;
      ++proposals;
      waiting.push_back(i);
    }
    if (waiting.empty()) break;
    const std::size_t i = waiting.front();
    waiting.pop_front();
    const RecordedOutcome& o = space.outcome(i);
    Evaluation e{i, o.status, o.status == Status::Ok ? o.time_ms : 0.0, result.best_ms};
    if (o.status == Status::Ok && (!result.best_ms || o.time_ms < *result.best_ms)) {
      result.best_ms = o.time_ms;
      result.best_index = i;
      e.best_ms = o.time_ms;
    }
    strategy.observe({i, e.status, e.time_ms});
    result.evaluations.push_back(e);
    if (trace) trace->evaluation(space, result.evaluations.size(), e);
  }
  return result;
}

SimulationResult simulate(const ReplaySpace& space, const std::string& strategy, std::size_t budget, uint64_t seed,
                          TraceSink* trace, std::size_t first, std::size_t in_flight,
                          const std::vector<std::size_t>& prior) {
  if (first >= space.size())
    throw Error("simulate: the DEFAULT config " + std::to_string(first) + " is out of range (" +
                std::to_string(space.size()) + " configs)");
  budget = std::min(budget, space.size());
  // make_strategy resolves "default"; the result names the strategy that ran.
  std::unique_ptr<Strategy> s = make_strategy(strategy, {space.space(), first, seed, budget, false, prior});
  return simulate(space, *s, budget, trace, in_flight);
}

}  // namespace ktune
