// terminal_text: text read from files (a DB's GPU name, a compile log line, a worker's reply)
// printed on a terminal can neither run an escape sequence nor forge a line of output.
#include <gtest/gtest.h>

#include <string>

#include "ktune/text.hpp"

namespace {

using ktune::terminal_text;

// Every byte a terminal acts on: C0 controls (ESC, CR, LF, BS, BEL, ...) and DEL.
TEST(TerminalText, LinesKeepTheirBreaksAndEscapeTheRest) {
  using ktune::terminal_lines;
  EXPECT_EQ(terminal_lines("2 problems:\n  a\x1b[31m\n  b\r"), "2 problems:\n  a\\x1b[31m\n  b\\x0d");
  EXPECT_EQ(terminal_lines("one line"), "one line");
  EXPECT_EQ(terminal_lines("abcdef\nxy", 5), "ab...\nxy");  // each line cut on its own
  EXPECT_EQ(terminal_lines("a\nb\nc\nd", 200, 2), "a\nb\n... (2 more lines)");
  EXPECT_EQ(terminal_lines("a\n"), "a\n");
}

TEST(TerminalText, EveryControlByteIsEscaped) {
  for (int c = 0; c < 0x20; ++c) {
    const std::string text = std::string("a") + static_cast<char>(c) + "b";
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", c);
    EXPECT_EQ(terminal_text(text), std::string("a") + hex + "b") << c;
  }
  EXPECT_EQ(terminal_text("a\x7f"), "a\\x7f");
  EXPECT_EQ(terminal_text("\x1b[2J\x1b[H"), "\\x1b[2J\\x1b[H");
  EXPECT_EQ(terminal_text("NVIDIA H200\r\nktune: sgemm: baked"), "NVIDIA H200\\x0d\\x0aktune: sgemm: baked");
}

// UTF-8 that prints stays; C1 controls (U+009B is a one-character CSI) and bytes that are not
// UTF-8 (cut sequences, overlong forms, surrogates, 0xff) are escaped byte by byte.
TEST(TerminalText, Utf8StaysC1AndInvalidBytesAreEscaped) {
  EXPECT_EQ(terminal_text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(terminal_text("\xc2\x9b"
                          "2J"),
            "\\xc2\\x9b2J");
  EXPECT_EQ(terminal_text("\x9b"
                          "2J"),
            "\\x9b2J");
  EXPECT_EQ(terminal_text("a\xff\xfe"), "a\\xff\\xfe");
  EXPECT_EQ(terminal_text("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(terminal_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(terminal_text("\xe2\x82"), "\\xe2\\x82");           // cut short
}

// Long text is cut at `max` bytes, on a character boundary, ending in "...".
TEST(TerminalText, LengthIsCapped) {
  EXPECT_EQ(terminal_text(std::string(10, 'x'), 10), std::string(10, 'x'));
  EXPECT_EQ(terminal_text(std::string(11, 'x'), 10), "xxxxxxx...");
  const std::string big(5 << 20, 'G');
  EXPECT_EQ(terminal_text(big).size(), 200u);
  const std::string wide = std::string(6, 'a') + "\xc3\xa9\xc3\xa9\xc3\xa9";
  const std::string cut = terminal_text(wide, 11);
  EXPECT_EQ(cut,
            "aaaaaa\xc3\xa9"
            "...")
      << cut;  // no half of an é
  EXPECT_LE(terminal_text(std::string(100, '\x1b'), 20).size(), 20u);
}

}  // namespace
