#pragma once
// Choices made by online tuning (KTUNE_ONLINE=1), kept on disk so that the next process
// launches at once. One line per choice, "kernel<TAB>GPU<TAB>key values<TAB>config id",
// appended; the last line for a kernel, GPU and key wins. Malformed lines, and a last line
// without its newline (a write cut short), are skipped.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>

namespace ktune {

class OnlineCache {
 public:
  // `path` empty: $XDG_CACHE_HOME/ktune/online.tsv, else ~/.cache/ktune/online.tsv.
  explicit OnlineCache(std::string path);

  std::optional<std::string> find(const std::string& kernel, const std::string& gpu,
                                  std::span<const int64_t> key) const;
  // Appends; a cache that cannot be written only costs the next process a measurement.
  void store(const std::string& kernel, const std::string& gpu, std::span<const int64_t> key,
             const std::string& config_id);

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::map<std::tuple<std::string, std::string, std::string>, std::string> choices_;
};

}  // namespace ktune
