#pragma once
// Reads a whole file that may be gzip-compressed (Kernel Tuner ships its caches as
// .json.gz). Internal to the replay backend.
#include <filesystem>
#include <string>

namespace ktune {

// The file's bytes, inflated when they start with the gzip magic (whatever the name says).
// Throws Error naming the file for a missing or unreadable file, a damaged or truncated
// gzip stream, and a .gz name on a file that is not gzip.
std::string read_maybe_gzip(const std::filesystem::path& path);

}  // namespace ktune
