// Fuzz target: the DB loader (ktune::Db and Db::load_document) on a file holding the
// input. The loader may refuse a file, never crash on one, and what it keeps it must keep
// faithfully:
//   - load_document refuses exactly the files the constructor sets aside;
//   - every measurement of the normalized document is found again through find();
//   - after a record(), the file on disk reads back as the document in memory, with
//     nothing skipped.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_check.hpp"
#include "ktune/db.hpp"
#include "ktune/error.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One private directory per process, emptied before each input (the constructor moves
// corrupt files aside, and those would pile up), removed when the process exits. In
// memory where the machine has /dev/shm: each record() syncs the file, which costs
// milliseconds on a disk and would bound fuzzing at a few dozen inputs a second.
class Scratch {
 public:
  Scratch() {
    std::error_code ec;
    const fs::path base = fs::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0
                              ? fs::path("/dev/shm")
                              : fs::temp_directory_path();
    std::string pattern = (base / "ktune_fuzz_db_XXXXXX").string();
    KTUNE_FUZZ_CHECK(::mkdtemp(pattern.data()) != nullptr);
    dir_ = pattern;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path fresh_file(const char* name) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir_, ec)) fs::remove_all(entry.path(), ec);
    return dir_ / name;
  }

 private:
  fs::path dir_;
};

ktune::Fingerprint some_fingerprint() {
  ktune::Fingerprint fp;
  fp.kernel_hash = "0123456789abcdef";
  fp.nvcc_version = "13.0.88";
  fp.gpu = {.name = "NVIDIA H200",
            .cc_major = 9,
            .cc_minor = 0,
            .sm_count = 132,
            .driver_version = 13000,
            .l2_bytes = 62914560};
  return fp;
}

ktune::Measurement some_measurement() {
  ktune::Measurement m;
  m.samples_ms = {0.5, 0.25, 0.75};
  m.median_ms = 0.5;
  m.seconds = 0.125;
  return m;
}

// Up to `limit` measurements of the document, each looked up through find().
void check_found(const ktune::Db& db, std::size_t limit) {
  std::size_t seen = 0;
  for (const auto& [digest, slot] : db.document().at("fingerprints").items()) {
    const ktune::Fingerprint fp = ktune::Fingerprint::from_json(slot.at("fingerprint"));
    KTUNE_FUZZ_CHECK(fp.digest() == digest);
    for (const auto& [key, configs] : slot.at("keys").items())
      for (const auto& [id, rec] : configs.items()) {
        KTUNE_FUZZ_CHECK(db.find(fp, key, id).has_value());
        if (++seen == limit) return;
      }
  }
}

void check_db(const uint8_t* data, std::size_t size) {
  static Scratch scratch;
  const fs::path path = scratch.fresh_file("kernel.json");
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    KTUNE_FUZZ_CHECK(out.good());
  }

  std::optional<ktune::Db::Loaded> loaded;
  try {
    loaded = ktune::Db::load_document(path);
  } catch (const ktune::Error&) {
  }
  const std::string kernel = loaded ? loaded->document.at("kernel").get<std::string>() : std::string("fuzz");

  ktune::Db db(path, kernel);
  if (loaded) {
    KTUNE_FUZZ_CHECK(db.document() == loaded->document);
    KTUNE_FUZZ_CHECK(db.warning().empty() == (loaded->skipped == 0));
    KTUNE_FUZZ_CHECK(fs::exists(path));  // a usable file is never set aside
  } else {
    KTUNE_FUZZ_CHECK(!db.warning().empty());
    KTUNE_FUZZ_CHECK(db.document().at("fingerprints").empty());
  }
  check_found(db, 64);

  // Record into the file's first fingerprint and key where it has them, to exercise the
  // merge into what was read; otherwise into a new one.
  ktune::Fingerprint fp = some_fingerprint();
  std::string key = "K=1,M=2";
  const json& fps = db.document().at("fingerprints");
  if (!fps.empty()) {
    fp = ktune::Fingerprint::from_json(fps.begin()->at("fingerprint"));
    const json& keys = fps.begin()->at("keys");
    if (!keys.empty()) key = keys.begin().key();
  }
  const json values = {{"X", 1}, {"Y", 2}};
  const std::string id = ktune::config_id_of(values);
  db.record(fp, key, id, values, some_measurement());
  KTUNE_FUZZ_CHECK(db.find(fp, key, id).has_value());

  const ktune::Db::Loaded back = ktune::Db::load_document(path);
  KTUNE_FUZZ_CHECK(back.skipped == 0);
  KTUNE_FUZZ_CHECK(back.document == db.document());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  ktune::fuzz::on_small_stack([=] { check_db(data, size); });
  return 0;
}
