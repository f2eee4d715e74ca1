// `ktune show DB... [--key K] [--gpu NAME] [--top N] [--json]`: what tuning DBs hold, per
// file, fingerprint (GPU, nvcc, kernel version) and key: how many configs were measured,
// their statuses, and the fastest ok ones. Read-only: no lock taken, nothing written.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/db_inputs.hpp"
#include "cli/option_checks.hpp"
#include "ktune/db.hpp"
#include "ktune/db_tables.hpp"
#include "ktune/error.hpp"
#include "ktune/key.hpp"
#include "ktune/measurement.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ShowOptions {
  std::vector<std::string> inputs;
  std::string key;  // "M=4096 N=4096 K=4096" or the canonical "K=4096,M=4096,N=4096"
  std::string gpu;
  int top = 1;
  bool json = false;
};

// One key of one fingerprint: counts by status and the `top` fastest ok, unabandoned configs.
json summarize_key(const std::string& key, const std::vector<DbEntry>& entries, int top) {
  std::map<std::string, int> counts;
  std::vector<std::pair<double, const DbEntry*>> ok;
  for (const DbEntry& e : entries) {
    ++counts[to_string(e.measurement.status)];
    if (e.measurement.status == Status::Ok && !e.measurement.abandoned) ok.emplace_back(e.measurement.median_ms, &e);
  }
  std::stable_sort(ok.begin(), ok.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  json best = json::array();
  for (std::size_t i = 0; i < ok.size() && i < static_cast<std::size_t>(top); ++i)
    best.push_back({{"id", ok[i].second->config_id}, {"median_ms", ok[i].first}, {"values", ok[i].second->values}});
  return {{"key", key}, {"measured", entries.size()}, {"counts", counts}, {"best", best}};
}

json show_file(const fs::path& path, const ShowOptions& o, const std::string& key_filter) {
  const Db::Loaded loaded = Db::load_document(path);
  const DbTables db = DbTables::of(loaded.document);
  json file = {{"path", path.string()}, {"kernel", db.kernel}, {"fingerprints", json::array()}};
  if (loaded.skipped) file["skipped"] = {{"entries", loaded.skipped}, {"first", loaded.first_skipped}};
  for (const DbTable& t : db.tables) {
    const Fingerprint& f = t.fingerprint;
    if (!o.gpu.empty() && f.gpu.name != o.gpu) continue;
    json keys = json::array();
    for (const auto& [key, entries] : t.keys)
      if (key_filter.empty() || key == key_filter) keys.push_back(summarize_key(key, entries, o.top));
    file["fingerprints"].push_back({{"digest", t.digest},
                                    {"gpu", f.gpu.to_json()},
                                    {"nvcc_version", f.nvcc_version},
                                    {"kernel_hash", f.kernel_hash},
                                    {"keys", keys}});
  }
  return file;
}

// Every string below was read from a DB file: printed through terminal_text.
void print_text(const json& file) {
  auto t = [](const json& s) { return terminal_text(s.is_string() ? s.get<std::string>() : s.dump()); };
  std::cout << t(file["path"]) << ": kernel " << t(file["kernel"]) << ", " << file["fingerprints"].size()
            << " fingerprint(s)\n";
  if (file.contains("skipped"))
    std::cout << "  " << file["skipped"]["entries"]
              << " malformed entries left out; the first: " << t(file["skipped"]["first"]) << "\n";
  for (const auto& fp : file["fingerprints"]) {
    const json& g = fp["gpu"];
    std::cout << "  " << t(g.value("name", "?")) << " (sm_" << g.value("cc_major", 0) << g.value("cc_minor", 0) << ", "
              << g.value("sm_count", 0) << " SMs, driver " << g.value("driver_version", 0) << "), nvcc "
              << t(fp["nvcc_version"]) << ", kernel " << t(fp["kernel_hash"]) << ": " << fp["keys"].size()
              << " key(s)\n";
    for (const auto& k : fp["keys"]) {
      std::ostringstream counts;
      for (const auto& [status, n] : k["counts"].items())
        counts << (counts.tellp() ? ", " : "") << terminal_text(status) << " " << n;
      std::cout << "    " << std::left << std::setw(28) << t(k["key"]) << " " << k["measured"] << " measured ("
                << counts.str() << ")\n";
      if (k["best"].empty()) std::cout << "      no config came out ok\n";
      for (const auto& b : k["best"])
        std::cout << "      " << std::fixed << std::setprecision(4) << b["median_ms"].get<double>() << " ms  "
                  << values_text(b["values"]) << "  (" << t(b["id"]) << ")\n";
    }
  }
}

void run(const ShowOptions& o) {
  const std::string key_filter = o.key.empty() ? "" : key_id(parse_key(o.key));
  json out = {{"files", json::array()}};
  for (const auto& path : db_files(o.inputs)) out["files"].push_back(show_file(path, o, key_filter));
  if (o.json) {
    // Names read from DBs need not be UTF-8; dump() would throw on them.
    std::cout << out.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return;
  }
  for (const auto& file : out["files"]) print_text(file);
}

}  // namespace

void add_show_command(CLI::App& app) {
  auto o = std::make_shared<ShowOptions>();
  CLI::App* sub =
      app.add_subcommand("show", "Show what tuning DBs hold: per GPU and key, the statuses and the fastest configs");
  sub->add_option("inputs", o->inputs, "DB files, or directories of them (their *.json)")->required();
  sub->add_option("--key", o->key, "only this key, e.g. \"M=4096 N=4096 K=4096\"")
      ->check(checked_by([](const std::string& v) { parse_key(v); }, "KEY"));
  sub->add_option("--gpu", o->gpu, "only fingerprints of this GPU model, e.g. \"NVIDIA H200\"");
  sub->add_option("--top", o->top, "fastest ok configs to list per key")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  sub->add_flag("--json", o->json, "print what the DBs hold as JSON");
  sub->callback([o] { run(*o); });
}

}  // namespace ktune::cli
