#include "ktune/text.hpp"

#include <cctype>
#include <cstdio>
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

std::string assignments_text(std::span<const std::string> names, std::span<const int64_t> values) {
  std::string s;
  for (std::size_t k = 0; k < names.size() && k < values.size(); ++k)
    s += (k ? " " : "") + names[k] + "=" + std::to_string(values[k]);
  return s;
}

namespace {

// The length of the UTF-8 sequence at s[i] of a printable character; 0 when the bytes there
// are not UTF-8 (overlong, surrogate, beyond U+10FFFF, cut short) or a C1 control.
std::size_t utf8_printable_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  std::size_t n = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
  if (b >= 0xf5 || n == 0 || i + n > s.size()) return 0;
  uint32_t cp = b & (0x7f >> n);
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (byte(i + k) & 0x3f);
  }
  const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  if (cp >= 0x80 && cp < 0xa0) return 0;  // C1 controls: 0x9b starts an escape sequence
  return n;
}

}  // namespace

std::string terminal_lines(std::string_view s, std::size_t max, std::size_t max_lines) {
  std::string out;
  std::size_t lines = 0, start = 0;
  for (;;) {
    const std::size_t end = s.find('\n', start);
    if (lines == max_lines) {
      std::size_t more = 1;
      for (std::size_t at = start; (at = s.find('\n', at)) != std::string_view::npos; ++at) ++more;
      out += "... (" + std::to_string(more) + " more lines)";
      break;
    }
    out += terminal_text(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start), max);
    ++lines;
    if (end == std::string_view::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

std::string terminal_text(std::string_view s, std::size_t max) {
  std::string out;
  bool cut = false;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t n = c >= 0x20 && c < 0x7f ? 1 : c >= 0x80 ? utf8_printable_length(s, i) : 0;
    std::string piece;
    if (n > 0) {
      piece = s.substr(i, n);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      piece = hex;
      n = 1;
    }
    if (out.size() + piece.size() > max) {
      cut = true;
      break;
    }
    out += piece;
    i += n;
  }
  if (cut) {
    while (out.size() + 3 > max && !out.empty()) {  // whole characters off the end
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xc0) == 0x80) out.pop_back();
      if (!out.empty()) out.pop_back();
    }
    out += "...";
  }
  return out;
}

std::string errno_text(int err) { return std::strerror(err); }

std::string shell_quote(const std::string& arg) {
  const bool safe = !arg.empty() &&
                    arg.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:,+@%") ==
                        std::string::npos;
  if (safe) return arg;
  std::string out = "'";
  for (char ch : arg) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

}  // namespace ktune
