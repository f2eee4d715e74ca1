#include "ktune/db_tables.hpp"

#include "base/untrusted_json.hpp"
#include "ktune/db.hpp"
#include "ktune/error.hpp"

namespace ktune {

DbTables DbTables::of(const nlohmann::json& normalized) {
  DbTables out;
  out.kernel = normalized.value("kernel", std::string());
  for (const auto& [digest, slot] : normalized.at("fingerprints").items()) {
    DbTable table{digest, Fingerprint::from_json(slot.at("fingerprint")), {}};
    for (const auto& [key, configs] : slot.at("keys").items()) {
      std::vector<DbEntry>& entries = table.keys[key];
      for (const auto& [id, rec] : configs.items())
        entries.push_back({id, rec.at("values"), Measurement::from_json(rec.at("measurement"))});
    }
    out.tables.push_back(std::move(table));
  }
  return out;
}

DbTables DbTables::load(const std::filesystem::path& path) { return of(Db::load_document(path).document); }

std::set<std::string> DbTables::keys() const {
  std::set<std::string> all;
  for (const DbTable& t : tables)
    for (const auto& [key, entries] : t.keys) all.insert(key);
  return all;
}

namespace {

// Names from a hostile file can be megabytes long; messages stay one short line.
std::string shown(const std::string& s) { return untrusted_json::quoted(s); }

std::string listed(const std::set<std::string>& names) {
  std::string out;
  std::size_t n = 0;
  for (const std::string& s : names) {
    if (n++ == 5) return out + ", ...";
    out += (out.empty() ? "" : ", ") + shown(s);
  }
  return out.empty() ? "none" : out;
}

}  // namespace

std::string DbTables::wanted_key(const std::string& key, const std::string& origin) const {
  const std::set<std::string> all = keys();
  if (key.empty()) {
    if (all.size() != 1)
      throw Error(origin + ": the DB holds " + std::to_string(all.size()) +
                  " keys; name one with --key (keys: " + listed(all) + ")");
    return *all.begin();
  }
  if (!all.count(key)) throw Error(origin + ": no measurements for key " + shown(key) + " (keys: " + listed(all) + ")");
  return key;
}

const DbTable* DbTables::fullest(const std::string& key) const {
  const DbTable* chosen = nullptr;
  std::size_t most = 0;
  for (const DbTable& t : tables)
    if (auto it = t.keys.find(key); it != t.keys.end() && it->second.size() > most) {
      most = it->second.size();
      chosen = &t;
    }
  return chosen;
}

}  // namespace ktune
