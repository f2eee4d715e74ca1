#include "checks.hpp"

#include <gtest/gtest.h>

namespace ktune::file_faults {

std::string message_problem(const std::string& message) {
  if (message.empty()) return "no message";
  if (message.size() > 1500) return "a message of " + std::to_string(message.size()) + " bytes";
  const std::size_t newline = message.find('\n');
  if (newline != message.size() - 1) return "not one line ending in a newline";
  for (unsigned char c : message.substr(0, newline))
    if (c < 0x20 || c >= 0x7f) return "byte " + std::to_string(c) + " in the message";
  return "";
}

void expect_no_crash(const ToolRun& run) {
  EXPECT_FALSE(run.timed_out) << run.command;
  EXPECT_EQ(run.signal, 0) << run.command << "\n" << run.err.substr(0, 2000);
  EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.command << " exited " << run.exit_code << "\n"
                                                        << run.err.substr(0, 2000);
  if (run.exit_code == 1) EXPECT_EQ(message_problem(run.err), "") << run.command << "\n" << run.err.substr(0, 2000);
}

void expect_refusal(const ToolRun& run, const std::string& names) {
  EXPECT_FALSE(run.timed_out) << run.command;
  EXPECT_EQ(run.signal, 0) << run.command << "\n" << run.err.substr(0, 2000);
  EXPECT_EQ(run.exit_code, 1) << run.command << "\n" << run.out.substr(0, 2000) << run.err.substr(0, 2000);
  EXPECT_EQ(message_problem(run.err), "") << run.command << "\n" << run.err.substr(0, 2000);
  EXPECT_NE(run.err.find(names), std::string::npos) << run.command << "\n" << run.err.substr(0, 2000);
}

std::string injection_problem(const std::string& text) {
  std::string code;
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c != '\n' && (c < 0x20 || c >= 0x7f)) return "raw byte " + std::to_string(c) + " at " + std::to_string(i);
    if (text.compare(i, 2, "//") == 0) {  // comments say what the file is; no file's text
      const std::size_t end = text.find('\n', i);
      if (text.substr(i, end - i).find("PWNED") != std::string::npos) return "PWNED in a comment";
      i = end == std::string::npos ? text.size() : end;
      continue;
    }
    if (c != '"' && c != '\'') {
      code += text[i++];
      continue;
    }
    const char quote = text[i++];
    for (;; ++i) {
      if (i >= text.size()) return "a literal that does not end";
      if (text[i] == quote) break;
      if (text[i] == '\\') {
        const bool octal = i + 3 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '7' && text[i + 2] >= '0' &&
                           text[i + 2] <= '7' && text[i + 3] >= '0' && text[i + 3] <= '7';
        // The header's own character literals may use \n and the like; hostile text never.
        if (!octal && quote == '"') return "an escape other than \\ooo at byte " + std::to_string(i);
        i += octal ? 3 : 1;
      } else if (text[i] == '\n') {
        return "a newline inside a literal at byte " + std::to_string(i);
      }
    }
    ++i;
  }
  if (code.find("PWNED") != std::string::npos) return "PWNED outside string literals";
  if (code.find("system") != std::string::npos) return "\"system\" outside string literals";
  return "";
}

}  // namespace ktune::file_faults
