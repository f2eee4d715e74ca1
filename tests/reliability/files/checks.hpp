#pragma once
// What every reader must do with a bad file, as GoogleTest expectations.
#include <string>

#include "tool_run.hpp"

namespace ktune::file_faults {

// A message a person reads: one line, printable ASCII, short however big the file was.
// Empty when it is one, else what is wrong with it.
std::string message_problem(const std::string& message);

// The tool ran to its end (no signal, no hang) and exited 0 or 1; a failure said so on
// one clean line of stderr.
void expect_no_crash(const ToolRun& run);

// The tool refused: exit code 1 and one clean line naming `names` (the file).
void expect_refusal(const ToolRun& run, const std::string& names);

// Generated C++ holds hostile text only inside string literals, escaped: outside them (and
// outside comments) no "PWNED", every byte printable ASCII or a newline, every escape
// three octal digits. Empty when so, else the first problem.
std::string injection_problem(const std::string& generated);

}  // namespace ktune::file_faults
