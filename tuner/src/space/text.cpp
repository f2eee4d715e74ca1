#include "ktune/text.hpp"

#include <cctype>
#include <cstring>

#include <nlohmann/json.hpp>

namespace ktune {

std::string with_thousands(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(i, ",");
  return s;
}

bool is_c_identifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string json_excerpt(const nlohmann::json& value) {
  if (value.is_structured()) return value.is_array() ? "a list" : "an object";
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace ktune
