#pragma once
// `ktune merge`: combines DBs of one kernel tuned on other machines or GPUs into one DB
// directory, each fingerprint into the file of its GPU model. Inputs are only read; every
// write goes through Db::record, so it is atomic and safe beside a running tuner.
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ktune/measurement.hpp"

namespace ktune {

// What the merge did to one destination file, counted per (fingerprint, key, config).
struct MergeFileCounts {
  std::size_t added = 0;     // not in the file before
  std::size_t replaced = 0;  // in the file, and the input's measurement was better
  std::size_t kept = 0;      // in the file, and as good as the input's or better
  std::size_t keys = 0;      // distinct keys the inputs hold for this file
};

struct MergeReport {
  std::string kernel;
  std::filesystem::path into;
  std::map<std::string, MergeFileCounts> files;  // by file name: "NVIDIA_H200.json"
  std::vector<std::string> warnings;             // from destination files (see Db::warning)

  // "NVIDIA_H200.json: 234 added, 0 replaced, 3 kept (2 keys)", one line per file.
  std::string text() const;
  nlohmann::json to_json() const;
};

// Which measurement of one config a merge keeps: `incoming` only when it is better than
// `existing`: ok beats any failure; within ok, or within failures, more samples win; a tie
// keeps what is there, so merging the same DB twice changes nothing.
bool merge_prefers(const Measurement& incoming, const Measurement& existing);

// The DB files that INPUT arguments name: a file itself, a directory its *.json (sorted).
// Throws Error naming an input that is missing, neither, or a directory without *.json.
std::vector<std::filesystem::path> merge_input_files(const std::vector<std::filesystem::path>& inputs);

// Merges every DB file `inputs` name into `into` (made if missing). Everything is read and
// checked first: a corrupt input, inputs of different kernels or an existing file in `into`
// of another kernel (or corrupt) throws Error naming the file, and nothing is written.
MergeReport merge_dbs(const std::filesystem::path& into, const std::vector<std::filesystem::path>& inputs);

}  // namespace ktune
