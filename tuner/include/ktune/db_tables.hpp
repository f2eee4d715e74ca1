#pragma once
// A DB file's tables as types, for every reader that walks one (replay, export, priors,
// the bake, show, report): fingerprint → key → config, each entry its values and its
// measurement. Built from a document Db has normalized (Db::load_document or
// Db::document()), so every field is already checked.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/fingerprint.hpp"
#include "ktune/measurement.hpp"

namespace ktune {

struct DbEntry {
  std::string config_id;
  nlohmann::json values;  // {"TM": 64, ...}: the config's integer values by name
  Measurement measurement;
};

// One fingerprint's measurements.
struct DbTable {
  std::string digest;
  Fingerprint fingerprint;
  std::map<std::string, std::vector<DbEntry>> keys;  // key id → entries in config id order
};

struct DbTables {
  std::string kernel;
  std::vector<DbTable> tables;  // in digest order

  static DbTables of(const nlohmann::json& normalized);
  // Db::load_document, then of(): throws Error naming `path` when it is not a usable DB.
  static DbTables load(const std::filesystem::path& path);

  // Every key any table measured.
  std::set<std::string> keys() const;
  // `key` when some table measured it, else the DB's only key when `key` is empty; throws
  // Error prefixed by `origin` (a file name) listing the keys there are.
  std::string wanted_key(const std::string& key, const std::string& origin) const;
  // The table with the most entries of `key`, the first in digest order on a tie (so the
  // choice is deterministic); nullptr when no table measured it.
  const DbTable* fullest(const std::string& key) const;
};

}  // namespace ktune
