#include "ktune/depfile.hpp"

#include <cctype>
#include <cstdint>

namespace ktune {

void add_depfile_inputs(std::string_view text, std::set<std::string>& deps) {
  std::string token;
  bool in_targets = true;
  auto end_token = [&] {
    if (!token.empty() && !in_targets) deps.insert(token);
    token.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '\\' && next == '\n') {
      end_token();
      ++i;
    } else if (c == '\\' && next == '\r' && i + 2 < text.size() && text[i + 2] == '\n') {
      end_token();
      i += 2;
    } else if (c == '\\' && (next == ' ' || next == '#')) {
      token += next;
      ++i;
    } else if (c == '$' && next == '$') {
      token += '$';
      ++i;
    } else if (c == '\n') {
      end_token();
      in_targets = true;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      end_token();
    } else if (c == ':' && in_targets && (next == '\0' || std::isspace(uint8_t(next)))) {
      token.clear();
      in_targets = false;
    } else {
      token += c;
    }
  }
  end_token();
}

}  // namespace ktune
