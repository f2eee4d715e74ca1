#include "ktune/key.hpp"

#include <algorithm>
#include <charconv>

#include "ktune/error.hpp"
#include "ktune/text.hpp"

namespace ktune {
namespace {

constexpr const char* kKeyExample = "write e.g. --key \"M=4096 N=4096\"";

std::string key_quoted(std::string_view text) { return "\"" + terminal_text(text, 40) + "\""; }

// One NAME=INTEGER item of `text` into `key`.
void add_key_item(std::string_view item, std::string_view text, Key& key) {
  const std::size_t eq = item.find('=');
  if (eq == std::string_view::npos || eq == 0) throw Error(key_quoted(item) + " is not NAME=VALUE; " + kKeyExample);
  const std::string_view digits = item.substr(eq + 1);
  const char* last = digits.data() + digits.size();
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), last, value);
  if (digits.empty() || ec != std::errc() || ptr != last)
    throw Error(key_quoted(digits) + " in " + key_quoted(text) + " is not an integer");
  const std::string_view name = item.substr(0, eq);
  if (!key.emplace(std::string(name), value).second)
    throw Error(key_quoted(text) + " names " + key_quoted(name) + " twice");
}

}  // namespace

std::string key_id(const Key& key) {
  std::string id;
  for (const auto& [name, value] : key) {
    if (!id.empty()) id += ',';
    id += name + "=" + std::to_string(value);
  }
  return id;
}

// Typed text skips empty items (separators side by side, at either end); written text has none.
Key parse_key(std::string_view text, KeyText form) {
  const bool typed = form == KeyText::Typed;
  Key key;
  if (!typed && text.empty()) return key;
  const std::string_view separators = typed ? ", " : ",";
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find_first_of(separators, start), text.size());
    const std::string_view item = text.substr(start, end - start);
    start = end + 1;
    if (!item.empty() || !typed) add_key_item(item, text, key);
  }
  if (key.empty()) throw Error(key_quoted(text) + " is not a key; " + kKeyExample);
  return key;
}

}  // namespace ktune
