// `ktune export (--db FILE [--key K] | --cache FILE) --format kt-cache|t4 --out FILE [--json]`:
// writes one key's measurements (of a ktune DB, under the fingerprint with the most of
// them) or a Kernel Tuner cache's recording as a Kernel Tuner cache file or as T4 results
// (ktune/interop.hpp, docs/search.md "Export and import").
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "ktune/db.hpp"
#include "ktune/error.hpp"
#include "ktune/interop.hpp"
#include "ktune/key.hpp"
#include "ktune/manifest.hpp"
#include "ktune/replay.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {
namespace {

struct ExportOptions {
  std::string db;
  std::string key;
  std::string cache;
  std::string format;
  std::string out;
  std::string timestamp;
  bool json = false;
};

void run_export(const ExportOptions& o) {
  if (o.db.empty() == o.cache.empty())
    throw Error(
        "export: give exactly one input: --db FILE (ktune DB) or --cache FILE "
        "(Kernel Tuner cache)");
  if (!o.key.empty() && o.db.empty()) throw Error("export: --key selects a key of a ktune DB; it needs --db FILE");
  if (o.format != "kt-cache" && o.format != "t4")
    throw Error("export: --format must be kt-cache or t4, not \"" + o.format + "\"");
  InteropData data;
  std::string skipped;  // said once the export is done: a failure is one line of its own
  if (o.db.empty()) {
    data = interop_from_replay(ReplaySpace::from_cache_file(o.cache));
  } else {
    Db::Loaded loaded = Db::load_document(o.db);
    skipped = std::move(loaded.warning);
    data = interop_from_db(DbTables::of(loaded.document), o.key.empty() ? "" : key_id(parse_key(o.key)), o.db);
  }
  const nlohmann::ordered_json doc =
      o.format == "t4" ? to_t4_results(data, o.timestamp) : to_kernel_tuner_cache(data, o.timestamp);
  // Names read from the input need not be UTF-8; dump() would throw on them.
  write_file_atomic(o.out, doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (!skipped.empty()) std::cerr << "ktune export: warning: " << terminal_text(skipped, 400) << "\n";
  std::size_t timed = 0;
  for (const InteropEntry& e : data.entries) timed += e.measurement.status == Status::Ok;
  if (o.json) {
    nlohmann::ordered_json summary = {{"file", o.out},          {"format", o.format},
                                      {"kernel", data.kernel},  {"device", data.device},
                                      {"key", data.key},        {"configs", data.entries.size()},
                                      {"timed_configs", timed}, {"failed", data.entries.size() - timed}};
    std::cout << summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::cout << "wrote " << data.entries.size() << " configs (" << timed << " timed)"
            << (data.kernel.empty() ? "" : " of " + terminal_text(data.kernel, 80))
            << (data.device.empty() ? "" : " on " + terminal_text(data.device, 80))
            << (data.key.empty() ? "" : ", key " + terminal_text(data.key)) << " as "
            << (o.format == "t4" ? "T4 results" : "a Kernel Tuner cache") << " to " << o.out << "\n";
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* sub = app.add_subcommand("export", "Write measurements as a Kernel Tuner cache file or as T4 results");
  sub->add_option("--db", o->db, "a ktune DB file (<kernel DB dir>/<GPU>.json)");
  sub->add_option(
      "--key", o->key,
      "with --db: the key, e.g. \"M=64 N=64\" (names in any order, spaces or commas; default: its only key)");
  sub->add_option("--cache", o->cache, "or a Kernel Tuner cache file (.json or .json.gz)");
  sub->add_option("--format", o->format, "kt-cache (Kernel Tuner cache 1.1.0) or t4 (T4 results 1.0.0)")
      ->required()
      ->check(CLI::IsMember({"kt-cache", "t4"}));
  sub->add_option("--out", o->out, "the file to write (JSON)")->required();
  sub->add_option("--timestamp", o->timestamp, "the timestamp written on every entry (default: now, UTC)");
  sub->add_flag("--json", o->json, "print the summary as JSON");
  sub->callback([o] { run_export(*o); });
}

}  // namespace ktune::cli
