// `ktune import --t4 FILE --into DIR --kernel NAME [--gpu NAME] [--cc 8.0] [--sm-count N]
// [--memory-gib X] [--t4-metadata FILE] [--key K] [--kernel-hash H] [--nvcc V] [--json]`:
// records T4 results in the kernel's DB directory (DIR/<GPU model>.json). T4 has no ktune
// fingerprint: the kernel and nvcc versions are the ones named here, the GPU's identity
// comes from the options, else the metadata, else ktune's table of known GPUs
// (docs/cli.md, "ktune import").
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "ktune/db.hpp"
#include "ktune/error.hpp"
#include "ktune/interop.hpp"
#include "ktune/known_gpus.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {
namespace {

struct ImportOptions {
  std::string t4;
  std::string t4_metadata;
  std::string into;
  T4Import who;    // who.gpu: the name and SM count the options give
  std::string cc;  // "8.0", checked by compute_capability()
  double memory_gib = 0;
  bool json = false;
};

// A command line to complete: one line, exit code 2, as for a refused option value.
[[noreturn]] void refuse_import_command_line(const std::string& message) {
  std::cerr << "ktune: error: " << terminal_text(message, 2000) << "\n";
  throw CLI::RuntimeError(2);
}

// The options' facts, then the metadata's, then the table's.
ImportedGpu identify_imported_gpu(const ImportOptions& o, const nlohmann::ordered_json& results) {
  GpuIdentity given = o.who.gpu;
  if (!o.cc.empty()) {
    const std::size_t dot = o.cc.find('.');
    given.cc_major = std::stoi(o.cc.substr(0, dot));
    given.cc_minor = std::stoi(o.cc.substr(dot + 1));
  }
  given.memory_bytes = static_cast<uint64_t>(std::llround(o.memory_gib * 1073741824.0));
  ImportedGpu gpu = imported_gpu_from_options(given);
  fill_from_t4_metadata(gpu, results, o.t4);
  if (!o.t4_metadata.empty()) fill_from_t4_metadata(gpu, read_t4_file(o.t4_metadata, "T4 metadata"), o.t4_metadata);
  fill_from_known_gpus(gpu);
  if (gpu.name == GpuFactSource::Unknown)
    refuse_import_command_line(o.t4 +
                               ": no metadata names the GPU the results were measured on; "
                               "give it: --gpu \"NVIDIA H200\"");
  if (gpu.compute_capability == GpuFactSource::Unknown)
    refuse_import_command_line(o.t4 + ": the compute capability of \"" + terminal_text(gpu.gpu.name, 80) +
                               "\" is not known (no metadata gives it, and ktune's table of known GPUs "
                               "does not have that name); give it as nvidia-smi --query-gpu=compute_cap "
                               "prints it: --cc 8.0");
  return gpu;
}

std::string imported_cc_text(const GpuIdentity& g) {
  return std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor);
}

// "NVIDIA H200 (compute capability 9.0, 132 SMs, memory not known; compute capability and
// SM count from ktune's table of known GPUs)": what the DB records, and where each fact
// that no option gave came from.
std::string describe_imported_gpu(const ImportedGpu& g) {
  std::string facts = "compute capability " + imported_cc_text(g.gpu);
  facts += g.gpu.sm_count ? ", " + std::to_string(g.gpu.sm_count) + " SMs" : ", SM count not known";
  if (g.gpu.memory_bytes) {
    char gib[32];
    std::snprintf(gib, sizeof gib, "%.1f GiB", double(g.gpu.memory_bytes) / 1073741824.0);
    facts += std::string(", ") + gib;
  } else {
    facts += ", memory not known";
  }
  const std::vector<std::pair<GpuFactSource, const char*>> sources = {
      {GpuFactSource::Metadata, "the metadata"}, {GpuFactSource::KnownGpus, "ktune's table of known GPUs"}};
  for (const auto& [source, where] : sources) {
    std::vector<std::string> which;
    if (g.name == source) which.push_back("name");
    if (g.compute_capability == source) which.push_back("compute capability");
    if (g.sm_count == source) which.push_back("SM count");
    if (g.memory == source) which.push_back("memory");
    if (which.empty()) continue;
    std::string list;
    for (std::size_t i = 0; i < which.size(); ++i)
      list += (i == 0 ? "" : i + 1 == which.size() ? " and " : ", ") + which[i];
    facts += "; " + list + " from " + where;
  }
  return terminal_text(g.gpu.name, 80) + " (" + facts + ")";
}

nlohmann::ordered_json imported_gpu_json(const ImportedGpu& g) {
  return {{"name", g.gpu.name},
          {"compute_capability", imported_cc_text(g.gpu)},
          {"sm_count", g.gpu.sm_count},
          {"memory_bytes", g.gpu.memory_bytes},
          {"from",
           {{"name", gpu_fact_source_name(g.name)},
            {"compute_capability", gpu_fact_source_name(g.compute_capability)},
            {"sm_count", gpu_fact_source_name(g.sm_count)},
            {"memory_bytes", gpu_fact_source_name(g.memory)}}}};
}

void run_import(const ImportOptions& o) {
  namespace fs = std::filesystem;
  const nlohmann::ordered_json results = read_t4_file(o.t4);
  const ImportedGpu gpu = identify_imported_gpu(o, results);
  T4Import who = o.who;
  who.gpu = gpu.gpu;
  const std::vector<DbRecord> records = t4_to_db_records(results, who, o.t4);
  const fs::path path = fs::path(o.into) / (who.gpu.model_slug() + ".json");
  // Db would set aside another kernel's DB as corrupt: refuse instead.
  if (fs::exists(path)) {
    const std::string kernel = Db::load_document(path).document.value("kernel", std::string());
    if (kernel != who.kernel)
      throw Error(terminal_text(path.string()) + " is the DB of kernel \"" + terminal_text(kernel, 60) + "\", not \"" +
                  terminal_text(who.kernel, 60) + "\"; import into that kernel's DB directory");
  }
  std::error_code ec;
  fs::create_directories(o.into, ec);
  if (ec) throw Error(o.into + ": cannot make the directory (" + ec.message() + ")");
  Db db(path, who.kernel);
  if (!db.warning().empty()) std::cerr << "ktune import: warning: " << terminal_text(db.warning(), 400) << "\n";
  db.record_many(records);
  db.sync();
  std::size_t timed = 0;
  for (const DbRecord& r : records) timed += r.measurement.status == Status::Ok;
  const std::string key = records.empty() ? std::string() : records.front().key;
  if (o.json) {
    nlohmann::ordered_json doc = {{"file", path.string()},
                                  {"kernel", who.kernel},
                                  {"gpu", who.gpu.name},
                                  {"gpu_identity", imported_gpu_json(gpu)},
                                  {"key", key},
                                  {"fingerprint", records.front().fp.digest()},
                                  {"configs", records.size()},
                                  {"timed_configs", timed},
                                  {"failed", records.size() - timed}};
    std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::cout << "imported " << records.size() << " configs (" << timed << " timed, " << records.size() - timed
            << " failed) of " << terminal_text(who.kernel, 80) << " on " << describe_imported_gpu(gpu)
            << (key.empty() ? "" : ", key " + terminal_text(key)) << " into " << terminal_text(path.string()) << "\n";
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto o = std::make_shared<ImportOptions>();
  CLI::App* sub =
      app.add_subcommand("import", "Record T4 results (another tuner's measurements) in a kernel's DB directory");
  sub->add_option("--t4", o->t4, "T4 results file (.json or .json.gz)")->required();
  sub->add_option("--into", o->into, "the kernel's DB directory (made if missing)")->required();
  sub->add_option("--kernel", o->who.kernel, "the kernel's name (the DB's \"kernel\")")->required();
  sub->add_option("--gpu", o->who.gpu.name,
                  "the GPU the results were measured on, e.g. \"NVIDIA H200\" "
                  "(default: the name the metadata gives)")
      ->check(CLI::Validator(
          [](std::string& v) {
            return v.empty() || v.size() > 255 ? "a GPU's name has 1 to 255 bytes" : std::string();
          },
          "NAME"));
  sub->add_option("--cc", o->cc,
                  "its compute capability, e.g. 8.0 (default: the metadata's, else "
                  "ktune's table of known GPUs gives it by name)")
      ->check(compute_capability());
  sub->add_option("--sm-count", o->who.gpu.sm_count,
                  "its SM count (default: the metadata's, else the "
                  "table's, else 0: not known)")
      ->check(whole_number_up_to(100000));
  sub->add_option("--memory-gib", o->memory_gib,
                  "its memory in GiB, e.g. 80 (default: the metadata's, "
                  "else 0: not known)")
      ->check(memory_gib());
  sub->add_option("--t4-metadata", o->t4_metadata,
                  "the T4 metadata file written with the results (.json or .json.gz), for the GPU's "
                  "identity");
  sub->add_option("--key", o->who.key,
                  "the key they were measured on, e.g. \"M=64,N=64\" "
                  "(default: none)");
  sub->add_option("--kernel-hash", o->who.kernel_hash, "the fingerprint's kernel version (default: t4-import)");
  sub->add_option("--nvcc", o->who.nvcc_version, "the fingerprint's nvcc version (default: unknown)");
  sub->add_flag("--json", o->json, "print the summary as JSON");
  std::string known;  // wrapped as the lines above
  for (const KnownGpu& g : known_gpus()) {
    const std::string word = (known.empty() ? "" : ", ") + std::string(g.words);
    const std::size_t line = known.size() - (known.rfind('\n') == std::string::npos ? 0 : known.rfind('\n') + 1);
    known += line + word.size() > 100 ? ",\n" + std::string(g.words) : word;
  }
  sub->footer(
      "The GPU's identity: each fact from its option, else from the metadata of the --t4 file, then of\n"
      "--t4-metadata: Kernel Tuner's environment (device_name, compute_capability as \"90\", \"9.0\", 90 or\n"
      "[9, 0], device_properties.multiProcessorCount or MULTIPROCESSOR_COUNT and totalGlobalMem) at the top\n"
      "level or under environment, metadata or metadata.environment; nvidia-smi's product_name and\n"
      "fb_memory_usage.total under metadata.environment.device_query.nvidia-smi.nvidia_smi_log.gpu. Else\n"
      "the compute capability and SM count of a name that contains one of ktune's known GPUs:\n" +
      known +
      ".\n"
      "Without a name or a compute capability the import is refused (exit code 2).");
  sub->callback([o] { run_import(*o); });
}

}  // namespace ktune::cli
