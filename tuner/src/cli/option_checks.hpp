#pragma once
// Checks of command-line values that no input file can make right: a refused value is a bad
// command line (exit 2), found when the command line is parsed, before anything is compiled
// or read. Messages quote the argument as typed (cut short), never a converted number such as
// the largest double in full.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include <CLI/CLI.hpp>

#include "ktune/error.hpp"
#include "ktune/search_choice.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {

// The argument as a message quotes it: terminal-safe and at most 40 bytes.
inline std::string typed(const std::string& v) { return "\"" + terminal_text(v, 40) + "\""; }

// A finite decimal number (strtod syntax, nothing after it); nan, inf and 1e400 are not.
inline bool parse_finite(const std::string& v, double& out) {
  if (v.empty() || std::isspace(static_cast<unsigned char>(v[0]))) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(v.c_str(), &end);
  return end == v.c_str() + v.size() && errno != ERANGE && std::isfinite(out);
}

// A check that throws Error with the reason, as a validator: the reason is CLI11's message.
inline CLI::Validator checked_by(std::function<void(const std::string&)> check, const std::string& kind = "") {
  return CLI::Validator(
      [check](std::string& v) {
        try {
          check(v);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      },
      kind);
}

// A whole number from 1 to 2^63 (a count, a limit): CLI::PositiveNumber would take "-1"
// wrapped into a uint64_t, and quote the largest double in full when refusing "1e400".
inline CLI::Validator positive_integer() {
  return CLI::Validator(
      [](std::string& v) {
        const bool digits = !v.empty() && v.size() <= 19 && v.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || v.find_first_not_of('0') == std::string::npos)
          return typed(v) + " is not a whole number from 1 to 9223372036854775807";
        return std::string();
      },
      "COUNT >= 1");
}

// A search budget: "100" evaluations or "2%" of the space.
inline CLI::Validator budget_value() {
  return checked_by([](const std::string& v) { parse_budget(v, 1000000, "value"); }, "N|P%");
}

// A strategy's name, or "default".
inline CLI::Validator strategy_name() {
  return checked_by(
      [](const std::string& v) {
        if (!is_strategy_choice(v)) throw Error(typed(v) + " is not one of " + strategy_choices_text());
      },
      "NAME");
}

// A finite number >= 0 (a tolerance): "nan" would pass every comparison, "-1" none.
inline CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& v) {
        double x = 0;
        if (!parse_finite(v, x) || x < 0) return typed(v) + " is not a finite number >= 0, e.g. 1e-5";
        return std::string();
      },
      "NUMBER >= 0");
}

// A finite number > 0 (seconds, a factor).
inline CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& v) {
        double x = 0;
        if (!parse_finite(v, x) || x <= 0) return typed(v) + " is not a finite number > 0, e.g. 60";
        return std::string();
      },
      "NUMBER > 0");
}

// Decimal digits that fit 64 bits unsigned: "-1" would otherwise wrap to 2^64 - 1.
inline CLI::Validator unsigned_integer() {
  return CLI::Validator(
      [](std::string& v) {
        errno = 0;
        const bool digits = !v.empty() && v.size() <= 20 && v.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || (std::strtoull(v.c_str(), nullptr, 10), errno == ERANGE))
          return typed(v) + " is not a whole number from 0 to 18446744073709551615";
        return std::string();
      },
      "UINT64");
}

// GPU indices as the tuner counts them: "0,1,3", each once.
inline CLI::Validator gpu_list() {
  return CLI::Validator(
      [](std::string& v) {
        std::set<std::string> seen;
        for (std::size_t start = 0; start <= v.size();) {
          std::size_t comma = v.find(',', start);
          if (comma == std::string::npos) comma = v.size();
          const std::string item = v.substr(start, comma - start);
          if (item.empty() || item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos)
            return typed(v) + " is not a list of GPU numbers; write e.g. 0,1";
          if (!seen.insert(std::to_string(std::stoi(item))).second) return typed(v) + " names GPU " + item + " twice";
          start = comma + 1;
        }
        return std::string();
      },
      "GPU,...");
}

// A compute capability as nvcc's -arch=sm_XX takes it: 2 or 3 digits, then "a" or "f" or nothing.
inline CLI::Validator cuda_arch() {
  return CLI::Validator(
      [](std::string& v) {
        std::string digits = v;
        if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.pop_back();
        if (digits.size() < 2 || digits.size() > 3 || digits.find_first_not_of("0123456789") != std::string::npos ||
            digits[0] == '0')
          return typed(v) + " is not a compute capability; write e.g. 90, 90a or 100f";
        return std::string();
      },
      "ARCH");
}

// A compute capability as MAJOR.MINOR, the form nvidia-smi --query-gpu=compute_cap prints:
// "8.0", "10.0". "9" or "90" would be a guess at what was meant.
inline CLI::Validator compute_capability() {
  return CLI::Validator(
      [](std::string& v) {
        const std::size_t dot = v.find('.');
        const std::string major = v.substr(0, dot);
        const std::string minor = dot == std::string::npos ? "" : v.substr(dot + 1);
        const auto digits = [](const std::string& t) {
          return !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
        };
        if (!digits(major) || major.size() > 2 || major[0] == '0' || !digits(minor) || minor.size() != 1)
          return typed(v) + " is not a compute capability MAJOR.MINOR; write e.g. 8.0 or 9.0";
        return std::string();
      },
      "MAJOR.MINOR");
}

// A whole number from 1 to `max` that fits an int (an SM count).
inline CLI::Validator whole_number_up_to(int max) {
  return CLI::Validator(
      [max](std::string& v) {
        const bool digits = !v.empty() && v.size() <= 9 && v.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoi(v) < 1 || std::stoi(v) > max)
          return typed(v) + " is not a whole number from 1 to " + std::to_string(max);
        return std::string();
      },
      "1.." + std::to_string(max));
}

// A memory size in GiB: a finite number > 0, at most 1048576 (a PiB) so that bytes fit.
inline CLI::Validator memory_gib() {
  return CLI::Validator(
      [](std::string& v) {
        double x = 0;
        if (!parse_finite(v, x) || x <= 0 || x > 1048576)
          return typed(v) + " is not a memory size in GiB (above 0, at most 1048576), e.g. 80";
        return std::string();
      },
      "GIB");
}

}  // namespace ktune::cli
