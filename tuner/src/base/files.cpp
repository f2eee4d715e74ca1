#include "ktune/files.hpp"

#include <cerrno>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/untrusted_json.hpp"
#include "ktune/error.hpp"
#include "ktune/text.hpp"

namespace ktune {

using nlohmann::json;

std::string read_file(const std::filesystem::path& path) {
  // A directory opens fine and reads as empty: say what it is, not "empty" or "not found".
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path.string() + ": is a directory; give the file in it");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw Error(path.string() + ": cannot open for reading (" + errno_text(err ? err : ENOENT) + ")");
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(path.string() + ": cannot read (" + errno_text(errno) + ")");
  return buffer.str();
}

json read_json_file(const std::filesystem::path& path) {
  json doc;
  const std::string why = untrusted_json::parse(read_file(path), doc);
  if (!why.empty()) throw Error(path.string() + ": not valid JSON (" + why + ")");
  return doc;
}

bool write_file_if_changed(const std::filesystem::path& path, const std::string& text) {
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::stringstream old;
      old << in.rdbuf();
      if (old.str() == text) return false;
    }
  }
  write_file_atomic(path, text);
  return true;
}

void sync_directory(const std::filesystem::path& path) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

// Temporary file + rename: a reader, or a writer killed at any point, sees the old file or
// the new one. Every failure (no space, a file size limit, a read-only directory, a rename
// refused) removes the temporary and leaves the old file as it was.
void write_file_atomic(const std::filesystem::path& path, const std::string& text, const AtomicWrite& how) {
  auto failed = [&](const std::string& what, int err) {
    throw Error(path.string() + ": cannot write" + (how.subject.empty() ? "" : " " + how.subject) + " (" + what + ": " +
                errno_text(err) + "); the " + how.noun +
                " on disk is unchanged. Check that the directory is writable and the disk has space");
  };
  if (path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) failed("creating " + path.parent_path().string(), ec.value());
  }
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) failed("creating " + tmp.string(), errno);
  auto fail = [&](const std::string& what, int err) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());  // ours: created above
    failed(what, err);
  };
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("writing " + tmp.string(), n < 0 ? errno : ENOSPC);
    done += static_cast<std::size_t>(n);
  }
  if (how.durable && ::fsync(fd) != 0) fail("syncing " + tmp.string(), errno);
  const int rc = ::close(fd);
  fd = -1;
  if (rc != 0) fail("closing " + tmp.string(), errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("renaming " + tmp.string(), errno);
  if (how.durable) sync_directory(path);
}

}  // namespace ktune
