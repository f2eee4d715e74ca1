#pragma once
// What `ktune show` and `ktune report` share: their inputs (DB files or directories of
// them) and how a config's values read.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/error.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {

// The inputs that are files, and the *.json files of those that are directories (sorted).
inline std::vector<std::filesystem::path> db_files(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& in : inputs) {
    if (!fs::exists(in))
      throw Error(terminal_text(in) + ": no such file or directory; name DB files or directories of them");
    if (!fs::is_directory(in)) {
      files.emplace_back(in);
      continue;
    }
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(in))
      if (e.path().extension() == ".json" && e.is_regular_file()) found.push_back(e.path());
    if (found.empty()) throw Error(in + ": no *.json DB files in this directory");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

// {"BM": 128, "BN": 256} -> "BM=128 BN=256"; "-" for none. Names come from a DB file:
// the text is terminal-safe.
inline std::string values_text(const nlohmann::json& values) {
  std::string s;
  for (const auto& [name, v] : values.items())
    s += (s.empty() ? "" : " ") + name + "=" + v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return s.empty() ? "-" : terminal_text(s, 400);
}

}  // namespace ktune::cli
