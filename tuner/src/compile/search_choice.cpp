// Which search runs: names, budgets and the defaults that complete them.
#include "ktune/search_choice.hpp"

#include <algorithm>
#include <cmath>

#include "ktune/error.hpp"

namespace ktune {

// The strategies, in the order the docs list them; make_strategy's table follows it.
std::vector<std::string> strategy_names() {
  return {"exhaustive", "random", "random-refine", "local", "annealing", "genetic", "bayes", "hybrid"};
}

// By evidence (benchmarks/bench_strategies, 50 seeds, 4 recorded spaces, budgets 0.5-10 %,
// 16 proposals in flight as the tuner runs): genetic has the best mean score (0.615; hybrid
// 0.550, random-refine 0.469, annealing 0.426, local 0.369, bayes 0.204, random -0.019), is
// chosen for every space left out by the other three, and scores above random at every
// budget. docs/search.md has the tables.
std::string default_strategy_name() { return "genetic"; }

std::size_t proposals_ahead(std::size_t slots, std::optional<std::size_t> budget) {
  const std::size_t all = std::max<std::size_t>(slots, 1);
  return budget ? std::clamp<std::size_t>(*budget / 4, std::min<std::size_t>(2, all), all) : all;
}

std::size_t default_budget(std::size_t size) {
  const auto share = static_cast<std::size_t>(std::llround(0.02 * static_cast<double>(size)));
  return std::min(size, std::clamp<std::size_t>(share, 200, 2000));
}

bool is_strategy_choice(const std::string& name) {
  const auto known = strategy_names();
  return name == "default" || std::find(known.begin(), known.end(), name) != known.end();
}

std::string strategy_choices_text() {
  std::string list;
  for (const auto& n : strategy_names()) list += n + ", ";
  return list + "default";
}

SearchChoice choose_search(const std::string& strategy, const std::string& budget, std::optional<double> seconds,
                           std::size_t size, std::size_t whole_limit, const SearchOrigin& origin) {
  SearchChoice c;
  c.strategy = strategy;
  c.seconds = seconds;
  if (!strategy.empty() && !is_strategy_choice(strategy))
    throw Error(origin.strategy + " '" + strategy + "' is not a search strategy; use one of " +
                strategy_choices_text() + origin.unknown_strategy_hint);
  if (!budget.empty()) c.evaluations = parse_budget(budget, size, origin.budget);
  const std::string size_text = std::to_string(size) + " valid configs";
  if (strategy.empty() && (c.evaluations || c.seconds)) {
    c.strategy = "default";
    c.why = "a budget without a strategy: the default strategy (" + default_strategy_name() + ")";
  } else if (strategy.empty() && size <= whole_limit) {
    c.strategy = "exhaustive";
  } else if (strategy.empty()) {
    c.strategy = "default";
    c.evaluations = default_budget(size);
    c.why = "the space has " + size_text + ", more than the " + std::to_string(whole_limit) +
            " measured whole (MAX_CONFIGS): the default strategy (" + default_strategy_name() + ") with a budget of " +
            std::to_string(*c.evaluations) + " configs per key; name a STRATEGY or BUDGET to choose";
  } else if (strategy == "exhaustive" && !c.evaluations && !c.seconds && size > whole_limit) {
    throw Error("MAX_CONFIGS: exhaustive search of " + size_text + " compiles and measures every one, more than the " +
                std::to_string(whole_limit) +
                " allowed; give a BUDGET (e.g. 2%), another STRATEGY, or raise MAX_CONFIGS "
                "(per kernel) or -DKTUNE_MAX_CONFIGS=N");
  }
  return c;
}

std::size_t parse_budget(const std::string& text, std::size_t space_size, const std::string& what) {
  auto bad = [&](const std::string& why) {
    return Error(what + " \"" + text + "\" " + why +
                 "; give a number of evaluations (100) or a share of the space (2%)");
  };
  if (text.empty()) throw bad("is empty");
  const bool percent = text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  if (number.empty() || number.find_first_not_of("0123456789.") != std::string::npos ||
      number.find('.') != number.rfind('.') || number.find_first_of("0123456789") == std::string::npos)
    throw bad("is not a number");
  if (!percent) {
    if (number.find('.') != std::string::npos) throw bad("is not a whole number");
    if (number.size() > 18) throw bad("is too large");
    const std::size_t n = std::stoull(number);
    if (n == 0) throw bad("is zero");
    return n;
  }
  const double share = std::stod(number);
  if (share <= 0 || share > 100) throw bad("is not a share between 0% and 100%");
  const double n = std::round(share / 100.0 * static_cast<double>(space_size));
  return std::max<std::size_t>(1, static_cast<std::size_t>(n));
}

}  // namespace ktune
