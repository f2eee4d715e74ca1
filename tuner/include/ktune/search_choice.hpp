#pragma once
// Which search runs: the strategy names, the budget a user writes, and the defaults that
// complete what was not given. Shared by configure (`ktune plan` prints the choice), the
// tuner and `ktune tune --t1`, and free of the strategies themselves.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

// The names make_strategy knows, in the order the docs list them.
std::vector<std::string> strategy_names();
// The strategy that runs when none is named ("--strategy default"): chosen in this one
// place, by the evidence in docs/search.md.
std::string default_strategy_name();

// "2%" (of `space_size`, rounded to the nearest, at least 1) or a plain count of at least
// 1; throws Error naming `what` for anything else.
std::size_t parse_budget(const std::string& text, std::size_t space_size, const std::string& what);

// What a search runs: the strategy and budget given, completed by the defaults.
struct SearchChoice {
  std::string strategy;                    // a name make_strategy knows
  std::optional<std::size_t> evaluations;  // per key
  std::optional<double> seconds;           // per key
  std::string why;                         // what was chosen and why, when it was not all given
};
// The defaults, in one place for the CMake path, `ktune tune --t1` and configure's line:
// - a budget (count, share or seconds) without a strategy: the default strategy;
// - neither: every config (exhaustive) when the space has at most `whole_limit` configs,
//   else the default strategy with default_budget(size);
// - exhaustive with no budget over more than `whole_limit` configs: refused (Error), since
//   every config would be compiled and measured.
// `strategy` empty: none named; `budget` empty: no count. Throws Error for a bad name or
// budget, naming where each came from.
struct SearchOrigin {
  std::string strategy = "--strategy";  // "STRATEGY" for CMake, a T1 spec's "Search.Name"
  std::string budget = "--budget";      // "BUDGET", a T1 spec's "Budget"
  std::string unknown_strategy_hint;    // appended to the message for an unknown strategy
};
SearchChoice choose_search(const std::string& strategy, const std::string& budget, std::optional<double> seconds,
                           std::size_t size, std::size_t whole_limit, const SearchOrigin& origin = {});
// The names a user may give: strategy_names() and "default"; and as a message lists them.
bool is_strategy_choice(const std::string& name);
std::string strategy_choices_text();
// The evaluations a space too large to measure whole gets when none are given: 2 % of it,
// at least 200 and at most 2,000 configs (a few minutes of compiling on 16 cores).
std::size_t default_budget(std::size_t size);

// How far proposals may run ahead of the results when `slots` compiles and measurements
// can be under way at once (the tuner: compile jobs + 2 per GPU): all of them, but with a
// count budget at most a quarter of it (at least 2), so that three quarters of a small
// budget are proposed with results in hand; a search proposed blind is a random one.
std::size_t proposals_ahead(std::size_t slots, std::optional<std::size_t> budget);

}  // namespace ktune
