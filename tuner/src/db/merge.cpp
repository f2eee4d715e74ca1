#include "ktune/merge.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <system_error>
#include <utility>

#include <nlohmann/json.hpp>

#include "ktune/db.hpp"
#include "ktune/db_tables.hpp"
#include "ktune/error.hpp"
#include "ktune/fingerprint.hpp"

namespace ktune {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Kernel names come from files that may be hostile: messages show at most 40 characters.
std::string merge_shown_kernel(const std::string& s) {
  return "\"" + (s.size() > 40 ? s.substr(0, 37) + "..." : s) + "\"";
}

// One config's measurement as the inputs offer it: the best of them (merge_prefers).
struct MergeCandidate {
  json values;
  Measurement measurement;
};

// Everything the inputs hold for one destination file, by digest, key and config id.
struct MergeFingerprint {
  Fingerprint fp;
  std::map<std::string, std::map<std::string, MergeCandidate>> keys;
};
using MergeFilePlan = std::map<std::string, MergeFingerprint>;

// The *.json files in `dir`, sorted. Db's lock files, temporaries and files set aside
// end otherwise (".lock", ".tmp.<pid>", ".corrupt-<time>"), so they are not listed.
std::vector<fs::path> merge_json_files_in(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    if (it->path().extension() == ".json" && it->is_regular_file()) found.push_back(it->path());
  if (ec) throw Error(dir.string() + ": cannot list the directory (" + ec.message() + "); check its permissions");
  std::sort(found.begin(), found.end());
  return found;
}

// The document of the DB file at `path`, which must be of kernel `kernel` (the file's own
// when `kernel` is empty; `kernel_from` is where it was read): else Error naming both and
// `fix`. Malformed entries are an error too: a merge must not drop measurements quietly.
json merge_load_checked(const fs::path& path, std::string& kernel, const fs::path& kernel_from, const char* fix) {
  Db::Loaded loaded = Db::load_document(path);
  const std::string own = loaded.document.at("kernel").get<std::string>();
  if (kernel.empty()) {
    kernel = own;
  } else if (own != kernel) {
    throw Error(path.string() + ": it is the DB of kernel " + merge_shown_kernel(own) + ", but " +
                kernel_from.string() + " is the DB of kernel " + merge_shown_kernel(kernel) + "; " + fix);
  }
  if (loaded.skipped > 0)
    throw Error(path.string() + ": " + std::to_string(loaded.skipped) + " malformed entr" +
                (loaded.skipped == 1 ? "y" : "ies") + " (first: " + loaded.first_skipped +
                "); fix or remove them, then merge again: a merge never drops measurements "
                "quietly");
  return std::move(loaded.document);
}

// Adds one input's entries to the plan; between inputs, the better measurement of a config
// stays (the earlier input on a tie), so counts below compare each config once.
void merge_plan_add(std::map<std::string, MergeFilePlan>& plan, const json& doc) {
  for (DbTable& t : DbTables::of(doc).tables) {
    MergeFilePlan& file = plan[t.fingerprint.gpu.model_slug() + ".json"];
    auto [it, made] = file.try_emplace(t.digest);
    if (made) it->second.fp = std::move(t.fingerprint);
    for (auto& [key, entries] : t.keys) {
      auto& planned = it->second.keys[key];
      for (DbEntry& e : entries) {
        MergeCandidate c{std::move(e.values), std::move(e.measurement)};
        auto have = planned.find(e.config_id);
        if (have == planned.end())
          planned.emplace(e.config_id, std::move(c));
        else if (merge_prefers(c.measurement, have->second.measurement))
          have->second = std::move(c);
      }
    }
  }
}

}  // namespace

bool merge_prefers(const Measurement& incoming, const Measurement& existing) {
  const bool in_ok = incoming.status == Status::Ok;
  const bool ex_ok = existing.status == Status::Ok;
  if (in_ok != ex_ok) return in_ok;
  return incoming.samples_ms.size() > existing.samples_ms.size();
}

std::vector<fs::path> merge_input_files(const std::vector<fs::path>& inputs) {
  std::vector<fs::path> files;
  for (const fs::path& input : inputs) {
    std::error_code ec;
    const fs::file_status st = fs::status(input, ec);
    if (fs::is_regular_file(st)) {
      files.push_back(input);
    } else if (fs::is_directory(st)) {
      const std::vector<fs::path> found = merge_json_files_in(input);
      if (found.empty())
        throw Error(input.string() +
                    ": a directory without *.json DB files; give DB files "
                    "(<GPU model>.json) or directories that hold them");
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(st)) {
      throw Error(input.string() + ": neither a DB file nor a directory of them");
    } else {
      throw Error(input.string() +
                  ": no such file or directory; give DB files "
                  "(<GPU model>.json) or directories that hold them");
    }
  }
  return files;
}

MergeReport merge_dbs(const fs::path& into, const std::vector<fs::path>& inputs) {
  if (inputs.empty()) throw Error("no input DBs given; name DB files or directories of them");
  MergeReport report;
  report.into = into;

  // Read and check everything before the first write, so a bad input changes nothing.
  const std::vector<fs::path> files = merge_input_files(inputs);
  std::map<std::string, MergeFilePlan> plan;
  for (const fs::path& file : files)
    merge_plan_add(plan, merge_load_checked(file, report.kernel, files.front(), "merge one kernel's DBs at a time"));

  // The destination's files are Db's to load; Db would set aside one of another kernel or
  // a corrupt one, and nothing but an error should come of that in a merge.
  std::error_code ec;
  const fs::file_status into_status = fs::status(into, ec);
  if (fs::exists(into_status) && !fs::is_directory(into_status))
    throw Error(into.string() + ": --into must be a directory (the kernel's DB directory)");
  if (fs::is_directory(into_status)) {
    const std::string fix = "merge into the DB directory of one kernel (<KTUNE_DB_DIR>/" + report.kernel + ")";
    for (const fs::path& existing : merge_json_files_in(into))
      merge_load_checked(existing, report.kernel, files.front(), fix.c_str());
  }

  for (auto& [name, file_plan] : plan) {
    Db db(into / name, report.kernel);
    if (!db.warning().empty()) report.warnings.push_back(db.warning());
    MergeFileCounts& counts = report.files[name];
    std::set<std::string> keys;
    std::vector<DbRecord> records;
    for (auto& [digest, entry] : file_plan) {
      for (auto& [key, configs] : entry.keys) {
        keys.insert(key);
        for (auto& [id, c] : configs) {
          std::optional<Measurement> have = db.find(entry.fp, key, id);
          if (have && !merge_prefers(c.measurement, *have)) {
            ++counts.kept;
            continue;
          }
          records.push_back({entry.fp, key, id, c.values, c.measurement});
          ++(have ? counts.replaced : counts.added);
        }
      }
    }
    try {
      db.record_many(records);  // one write per destination file
    } catch (const Error& e) {
      throw Error(std::string(e.what()) +
                  ". Files merged before this one are in place; the "
                  "same merge run again completes it");
    }
    counts.keys = keys.size();
  }
  return report;
}

std::string MergeReport::text() const {
  if (files.empty()) return "nothing to merge: the inputs hold no measurements\n";
  std::string out;
  for (const auto& [name, c] : files)
    out += name + ": " + std::to_string(c.added) + " added, " + std::to_string(c.replaced) + " replaced, " +
           std::to_string(c.kept) + " kept (" + std::to_string(c.keys) + (c.keys == 1 ? " key)\n" : " keys)\n");
  return out;
}

json MergeReport::to_json() const {
  json out = {{"kernel", kernel}, {"into", into.string()}, {"files", json::object()}, {"warnings", warnings}};
  for (const auto& [name, c] : files)
    out["files"][name] = {{"added", c.added}, {"replaced", c.replaced}, {"kept", c.kept}, {"keys", c.keys}};
  return out;
}

}  // namespace ktune
