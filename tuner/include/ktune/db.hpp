#pragma once
// The tuning DB: one JSON file per kernel per GPU model, measurements keyed by
// fingerprint digest, then key, then config id.
//
// Every write takes an exclusive lock (flock on "<db>.lock"), re-reads the file if another
// writer replaced it, merges and replaces it atomically (temporary file + rename): a kill
// loses at most the config in flight, and two tuners on one DB lose nothing. fsync, which
// only a power loss needs, runs at most once a second and when the Db closes. A file that does not parse or
// has another schema is moved aside to "<db>.corrupt-<time>" with a warning, never trusted.
#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/fingerprint.hpp"
#include "ktune/measurement.hpp"

namespace ktune {

// The id of the config whose values are `values` ({"TM": 64, ...}), as config_id() makes it
// from names and values. Throws Error when a value is not a 64-bit integer. Every entry of a
// DB has the id of its values: readers drop one that does not, writers refuse it.
std::string config_id_of(const nlohmann::json& values);

// One measurement to record, for Db::record_many.
struct DbRecord {
  Fingerprint fp;
  std::string key;
  std::string config_id;
  nlohmann::json values;
  Measurement measurement;
};

class Db {
 public:
  static constexpr int kSchemaVersion = 1;

  // Opens (or starts) the DB at `path` for `kernel`. Reads it once; a corrupt file is
  // set aside and reported through `warning()`.
  Db(std::filesystem::path path, std::string kernel);
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();  // sync()

  const std::filesystem::path& path() const { return path_; }
  const std::string& warning() const { return warning_; }

  // The measurement of `config_id` on `key` under `fp`, if the DB has one.
  std::optional<Measurement> find(const Fingerprint& fp, const std::string& key, const std::string& config_id) const;

  // Adds one measurement (with the config's values, for readers of the file) and writes
  // the DB to disk at once, under the lock, merged with whatever other writers added.
  // Throws Error naming the path when it cannot write (the file on disk stays intact).
  void record(const Fingerprint& fp, const std::string& key, const std::string& config_id, const nlohmann::json& values,
              const Measurement& m);

  // Makes the last write durable (fsync of the file and its directory).
  void sync();

  // Many at once: one lock, one write (a merge of thousands of entries writes once).
  // All or nothing: when the write fails, none of them is recorded.
  void record_many(const std::vector<DbRecord>& records);

  // Re-reads the file (under the lock) to see what other writers added.
  void reload();

  const nlohmann::json& document() const { return doc_; }

  // A DB file read for someone else: no lock, nothing moved or written (writers replace
  // the file by rename, so it is read whole). For the inputs of `ktune merge`.
  struct Loaded {
    nlohmann::json document;    // normalized, like document(); "kernel" is the file's own
    std::size_t skipped = 0;    // malformed entries left out of `document`
    std::string first_skipped;  // where the first of them was and why; empty when none
    std::string warning;        // one line naming the file, the count and the first; or empty
  };
  // Throws Error naming `path` and the reason when it is missing, unreadable, not JSON,
  // not a ktune DB or of another schema version: what the constructor would set aside.
  static Loaded load_document(const std::filesystem::path& path);

 private:
  std::filesystem::path path_;
  std::string kernel_;
  std::string warning_;
  nlohmann::json doc_;
  // Identity of the file doc_ mirrors (device, inode, size, mtime s, mtime ns), all zero
  // when unknown: record() skips re-reading a file no one else has replaced since.
  std::array<int64_t, 5> stamp_{};
  // Each config's line of the file, made once (see render()).
  std::unordered_map<std::string, std::string> lines_;
  std::size_t rendered_size_ = 0;
  std::chrono::steady_clock::time_point last_sync_{};
  bool unsynced_ = false;

  static std::string line_key(const std::string& digest, const std::string& key, const std::string& config_id);
  std::string render();
};

}  // namespace ktune
