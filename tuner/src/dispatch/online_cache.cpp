#include "dispatch/online_cache.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ktune {
namespace {

std::string default_path() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/ktune/online.tsv";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/ktune/online.tsv";
  return "ktune-online.tsv";
}

// A baked key's values in the order its dimensions were declared, "4096,4096": the cache
// line's key field. Not a Key (ktune/key.hpp): the runtime sees keys positionally, without
// their names, and it is built from runtime_sources.cmake alone, into users' programs, so
// it uses nothing of the tuner's. Files written earlier hold this text: keep it as it is.
std::string cache_key_field(std::span<const int64_t> key) {
  std::string s;
  for (int64_t v : key) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
}

// Names with tabs or newlines would break the line format; they are never cached.
bool storable(const std::string& s) { return s.find_first_of("\t\n\r") == std::string::npos; }

}  // namespace

OnlineCache::OnlineCache(std::string path) : path_(path.empty() ? default_path() : std::move(path)) {
  // Only a regular file: opening a FIFO put in its place would block the first launch.
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  std::ifstream in(path_);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no newline: a line cut short, its id perhaps too
    std::istringstream fields(line);
    std::string kernel, gpu, key, id;
    if (std::getline(fields, kernel, '\t') && std::getline(fields, gpu, '\t') && std::getline(fields, key, '\t') &&
        std::getline(fields, id) && !id.empty() && storable(id))
      choices_[{kernel, gpu, key}] = id;
  }
}

std::optional<std::string> OnlineCache::find(const std::string& kernel, const std::string& gpu,
                                             std::span<const int64_t> key) const {
  auto it = choices_.find({kernel, gpu, cache_key_field(key)});
  if (it == choices_.end()) return std::nullopt;
  return it->second;
}

void OnlineCache::store(const std::string& kernel, const std::string& gpu, std::span<const int64_t> key,
                        const std::string& config_id) {
  if (!storable(kernel) || !storable(gpu) || !storable(config_id)) return;
  choices_[{kernel, gpu, cache_key_field(key)}] = config_id;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), ec);
  std::string line = kernel + "\t" + gpu + "\t" + cache_key_field(key) + "\t" + config_id + "\n";
  // One write() with O_APPEND: lines from concurrent processes do not interleave.
  int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  // A line cut short (a full disk, a killed process) would run into this one: end it with
  // a tab first, which no stored id holds, so that it never reads as a choice.
  struct stat st {};
  char last = '\n';
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && ::pread(fd, &last, 1, st.st_size - 1) == 1 &&
      last != '\n')
    line.insert(0, "\t\n");
  [[maybe_unused]] ssize_t n = ::write(fd, line.data(), line.size());
  ::close(fd);
}

}  // namespace ktune
