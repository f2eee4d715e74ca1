// `ktune import --t4 FILE --into DIR --kernel NAME --gpu "NVIDIA H200" [--key K]
// [--kernel-hash H] [--nvcc V] [--json]`: records T4 results in the kernel's DB directory
// (DIR/<GPU model>.json). T4 has no ktune fingerprint: the GPU, the kernel version and the
// nvcc version are the ones named here (docs/search.md, "Export and import").
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "ktune/db.hpp"
#include "ktune/error.hpp"
#include "ktune/interop.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {
namespace {

struct ImportOptions {
  std::string t4;
  std::string into;
  T4Import who;
  bool json = false;
};

void run_import(const ImportOptions& o) {
  namespace fs = std::filesystem;
  const std::vector<DbRecord> records = t4_to_db_records(read_t4_file(o.t4), o.who, o.t4);
  const fs::path path = fs::path(o.into) / (o.who.gpu.model_slug() + ".json");
  // Db would set aside another kernel's DB as corrupt: refuse instead.
  if (fs::exists(path)) {
    const std::string kernel = Db::load_document(path).document.value("kernel", std::string());
    if (kernel != o.who.kernel)
      throw Error(terminal_text(path.string()) + " is the DB of kernel \"" + terminal_text(kernel, 60) +
                  "\", not \"" + terminal_text(o.who.kernel, 60) + "\"; import into that kernel's DB directory");
  }
  std::error_code ec;
  fs::create_directories(o.into, ec);
  if (ec) throw Error(o.into + ": cannot make the directory (" + ec.message() + ")");
  Db db(path, o.who.kernel);
  if (!db.warning().empty()) std::cerr << "ktune import: warning: " << terminal_text(db.warning(), 400) << "\n";
  db.record_many(records);
  db.sync();
  std::size_t timed = 0;
  for (const DbRecord& r : records) timed += r.measurement.status == Status::Ok;
  const std::string key = records.empty() ? std::string() : records.front().key;
  if (o.json) {
    nlohmann::ordered_json doc = {{"file", path.string()},
                                  {"kernel", o.who.kernel},
                                  {"gpu", o.who.gpu.name},
                                  {"key", key},
                                  {"fingerprint", records.front().fp.digest()},
                                  {"configs", records.size()},
                                  {"timed_configs", timed},
                                  {"failed", records.size() - timed}};
    std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::cout << "imported " << records.size() << " configs (" << timed << " timed, "
            << records.size() - timed << " failed) of " << terminal_text(o.who.kernel, 80) << " on "
            << terminal_text(o.who.gpu.name, 80) << (key.empty() ? "" : ", key " + terminal_text(key)) << " into "
            << terminal_text(path.string()) << "\n";
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto o = std::make_shared<ImportOptions>();
  CLI::App* sub = app.add_subcommand(
      "import", "Record T4 results (another tuner's measurements) in a kernel's DB directory");
  sub->add_option("--t4", o->t4, "T4 results file (.json or .json.gz)")->required();
  sub->add_option("--into", o->into, "the kernel's DB directory (made if missing)")->required();
  sub->add_option("--kernel", o->who.kernel, "the kernel's name (the DB's \"kernel\")")->required();
  sub->add_option("--gpu", o->who.gpu.name, "the GPU the results were measured on, "
                                            "e.g. \"NVIDIA H200\"")->required();
  sub->add_option("--key", o->who.key, "the key they were measured on, e.g. \"M=64,N=64\" "
                                       "(default: none)");
  sub->add_option("--kernel-hash", o->who.kernel_hash,
                  "the fingerprint's kernel version (default: t4-import)");
  sub->add_option("--nvcc", o->who.nvcc_version, "the fingerprint's nvcc version (default: unknown)");
  sub->add_flag("--json", o->json, "print the summary as JSON");
  sub->callback([o] { run_import(*o); });
}

}  // namespace ktune::cli
