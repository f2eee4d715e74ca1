#pragma once
// A recorded search space: every valid config of a kernel measured once, so that search
// strategies can be run against it without a GPU ("replay"). Read from a Kernel Tuner
// cache file (.json or .json.gz, schema cache/1.1.0) or from one key of a ktune DB.
#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ktune/measurement.hpp"
#include "ktune/search_space.hpp"

namespace ktune {

// What the recording says of one config: a time when status is ok, else a failure.
struct RecordedOutcome {
  Status status = Status::Ok;
  double time_ms = 0;  // 0 unless status is ok
};

class ReplaySpace {
 public:
  // From parts: outcomes[i] belongs to config i of `space`. Throws Error when the sizes
  // differ or a time is negative or not finite.
  ReplaySpace(SearchSpace space, std::vector<RecordedOutcome> outcomes, std::string device, std::string kernel,
              std::string origin);

  // A Kernel Tuner cache file, gzipped or not (told by its first bytes, not its name).
  // Parameters are `tune_params` in `tune_params_keys` order; the configs are the entries
  // of "cache", ordered by their value positions (the order of Kernel Tuner's product).
  // Throws Error naming the file and the field for anything malformed or truncated.
  static ReplaySpace from_cache_file(const std::filesystem::path& path);
  // The same from an already parsed document; `origin` (a file name) prefixes errors.
  static ReplaySpace from_cache(const nlohmann::json& doc, const std::string& origin);

  // The configs measured on `key` (its canonical form, "M=64,N=64"; empty: the DB's only
  // key) in a ktune DB file, under the fingerprint with the most of them. Parameters and
  // their values are those the entries' "values" carry, values sorted ascending.
  static ReplaySpace from_db(const std::filesystem::path& db_file, const std::string& key);

  const SearchSpace& space() const { return space_; }
  std::size_t size() const { return outcomes_.size(); }
  const RecordedOutcome& outcome(std::size_t index) const { return outcomes_.at(index); }
  const std::string& device() const { return device_; }
  const std::string& kernel() const { return kernel_; }
  const std::string& origin() const { return origin_; }  // the file it came from

  // The fastest timed config (index, time in ms); throws Error when nothing was timed.
  std::pair<std::size_t, double> best() const;
  std::size_t timed() const;  // configs with status ok

  // A config as {name: value, ...}, parameters in the space's order.
  nlohmann::ordered_json config(std::size_t index) const;

 private:
  SearchSpace space_;
  std::vector<RecordedOutcome> outcomes_;
  std::string device_;
  std::string kernel_;
  std::string origin_;
};

}  // namespace ktune
