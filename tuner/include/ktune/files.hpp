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

// How write_file_atomic writes. `durable` adds fsync of the file and of its directory,
// which only a power loss needs; `subject` and `noun` name the file in a failure's message
// ("<path>: cannot write the tuning DB (...); the DB on disk is unchanged").
struct AtomicWrite {
  bool durable = false;
  std::string subject;  // after "cannot write", e.g. "the tuning DB"; empty: nothing
  std::string noun = "file";
};

// Replaces `path` with `text` the same way, whether or not it changed: for build outputs,
// which must end up newer than their inputs, and for DBs.
void write_file_atomic(const std::filesystem::path& path, const std::string& text, const AtomicWrite& how = {});

// fsync of the directory holding `path`, which makes a rename into it durable; best effort,
// some file systems refuse.
void sync_directory(const std::filesystem::path& path);

}  // namespace ktune
