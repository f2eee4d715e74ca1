#pragma once
// Whole files in and out: read one (or its JSON), and replace one so that a reader never
// sees half of it. Every failure throws Error naming the file and what to check.
#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace ktune {

// Reads a whole file; throws Error naming the file when it cannot be opened.
std::string read_file(const std::filesystem::path& path);

// Reads a JSON file; throws Error naming the file on I/O or syntax errors.
nlohmann::json read_json_file(const std::filesystem::path& path);

// Writes `text` to `path` only when it differs from what is there, through a temporary
// file and a rename: readers never see half a file, and an unchanged manifest keeps its
// timestamp so nothing downstream rebuilds.
bool write_file_if_changed(const std::filesystem::path& path, const std::string& text);

// Replaces `path` with `text` the same way, whether or not it changed: for build outputs,
// which must end up newer than their inputs.
void write_file_atomic(const std::filesystem::path& path, const std::string& text);

}  // namespace ktune
