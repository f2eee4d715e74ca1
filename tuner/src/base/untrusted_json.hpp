#pragma once
// Parsing JSON that someone else may have written (a DB, a manifest, a compile record,
// another tuner's cache): the reason for a refusal names what is wrong in a few words and
// quotes none of the file's bytes, which may be megabytes long, binary or hostile.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ktune/error.hpp"
#include "ktune/text.hpp"

namespace ktune::untrusted_json {

// nlohmann's parser is iterative, but copying, comparing and dumping a value recurse once
// per level: 100000 nested brackets parse, then overflow the stack of whatever touches
// them. No file ktune, Kernel Tuner or T4 writes nests more than 8 levels.
inline constexpr std::size_t kMaxDepth = 64;

// Whether arrays and objects in `text` nest deeper than `limit`; brackets in strings do not count.
inline bool nests_deeper_than(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

// Printable ASCII only, at most `max` characters (longer text ends in "..."): safe on one
// line of a terminal or log.
inline std::string printable(std::string_view s, std::size_t max = 80) {
  const bool cut = s.size() > max && max >= 3;
  std::string out;
  for (char c : s.substr(0, cut ? max - 3 : max)) out += c >= 0x20 && c < 0x7f ? c : '?';
  return cut ? out + "..." : out;
}

// Why the parser refused: the kind of error and where, without the "last read" excerpt.
// A name read from a file, quoted and cut to one short line for a message.
inline std::string quoted(std::string_view s) { return "\"" + printable(s, 40) + "\""; }

inline std::string parse_error_detail(const nlohmann::json::parse_error& e, std::size_t size) {
  std::string detail = "syntax error at byte " + std::to_string(e.byte);
  const std::string what = e.what();
  const std::size_t start = what.find(" - ");
  if (start != std::string::npos) {
    const std::size_t end = what.find("; last read", start);
    detail += ": " + printable(std::string_view(what).substr(
                         start + 3, end == std::string::npos ? std::string::npos : end - start - 3));
  }
  if (e.byte >= size) detail += " (the text ends early: a write cut short?)";
  return detail;
}

// Parses `text` into `out`. Returns "" on success, else why it was refused.
template <class Json>
std::string parse(const std::string& text, Json& out) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return "the file is empty (a write cut short?)";
  if (nests_deeper_than(text, kMaxDepth))
    return "arrays or objects nested more than " + std::to_string(kMaxDepth) + " levels deep";
  try {
    out = Json::parse(text);
    return "";
  } catch (const nlohmann::json::parse_error& e) {
    return parse_error_detail(e, text.size());
  } catch (const nlohmann::json::exception& e) {  // a number beyond a double, e.g. 1e400
    const std::string what = e.what();
    const std::size_t end = what.find("] ");
    return printable(end == std::string::npos ? what : what.substr(end + 2));
  }
}

// Fields of an object read from such a file, each checked for its type; an Error names the
// object (`where`), the field and what was there instead.
inline const nlohmann::json& field(const nlohmann::json& obj, const char* key, const char* where) {
  auto it = obj.find(key);
  if (it == obj.end()) throw Error(std::string(where) + ": \"" + key + "\" is missing");
  return *it;
}

inline std::string text_field(const nlohmann::json& obj, const char* key, const char* where) {
  const nlohmann::json& v = field(obj, key, where);
  if (!v.is_string()) throw Error(std::string(where) + ": \"" + key + "\" must be a string, got " + json_excerpt(v));
  return v.get<std::string>();
}

// An integer from 0 to `max`: json's get<int>() would cast an out-of-range or fractional
// number silently.
inline uint64_t count_field(const nlohmann::json& obj, const char* key, const char* where, uint64_t max) {
  const nlohmann::json& v = field(obj, key, where);
  const bool fits = v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
  if (!fits || v.get<uint64_t>() > max)
    throw Error(std::string(where) + ": \"" + key + "\" must be an integer from 0 to " + std::to_string(max) +
                ", got " + json_excerpt(v));
  return v.get<uint64_t>();
}

}  // namespace ktune::untrusted_json
