#pragma once
// Interop with other autotuners: ktune measurements out as a Kernel Tuner cache file
// (schema cache/1.1.0) or as T4 results (the "Open Autotuning Results" schema, T4/1.0.0),
// and T4 results in, as DB records or as a recorded space to replay (docs/search.md,
// "Export and import").
//
// Statuses map as follows (the reverse of each is what the importers read):
//   ktune status    Kernel Tuner "time"        T4 "invalidity"
//   ok              the median, in ms          correct
//   compile-failed  CompilationFailedConfig    compile
//   resource        InvalidConfig              constraints
//   launch-failed   RuntimeFailedConfig        runtime
//   crashed         RuntimeFailedConfig        runtime       (reads back: launch-failed)
//   timed-out       RuntimeFailedConfig        timeout       (KT reads back: launch-failed)
//   wrong-result    RuntimeFailedConfig        correctness   (KT reads back: launch-failed)
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/db.hpp"
#include "ktune/db_tables.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/key.hpp"
#include "ktune/measurement.hpp"
#include "ktune/replay.hpp"

namespace ktune {

// One config of a recording to export: its values (parameter name -> value) and what was
// measured.
struct InteropEntry {
  std::vector<int64_t> values;  // in InteropData::parameters order
  Measurement measurement;
};

// The measurements of one kernel on one key under one fingerprint: what the exporters
// write. Made from a DB document or from a ReplaySpace.
struct InteropData {
  std::string kernel;
  std::string device;                                  // the GPU's name
  std::string key;                                     // canonical, "M=64,N=64"; may be empty
  Key key_values;                                      // the key's values, by name
  std::vector<std::string> parameters;                 // names, in export order
  std::vector<std::vector<int64_t>> parameter_values;  // each parameter's values, ascending
  std::vector<InteropEntry> entries;                   // sorted by values
};

// The configs measured on `key` (canonical form; empty: the DB's only key) of a ktune DB's
// tables, under the fingerprint with the most of them (the rule of ReplaySpace::from_db).
// `origin` (a file name) prefixes errors.
InteropData interop_from_db(const DbTables& db, const std::string& key, const std::string& origin);
// A recorded space: every config with its outcome (no samples: a replay keeps one time).
InteropData interop_from_replay(const ReplaySpace& space);

// Status mappings (see the table above). kernel_tuner_failure: nullptr for ok.
const char* kernel_tuner_failure(Status s);
const char* t4_invalidity(Status s);
// Throws Error for a name that is not in the T4 schema's enum.
Status status_from_t4_invalidity(const std::string& invalidity);

// An ISO 8601 UTC timestamp of now, "2025-01-31T12:00:00Z".
std::string utc_timestamp_now();

// A Kernel Tuner cache document (schema_version 1.1.0): device_name, kernel_name,
// problem_size (the key's values, names sorted), tune_params_keys, tune_params, objective
// "time", cache {"v1,v2,...": {params..., "time": ms | failure, "times": samples,
// compile_time, verification_time, benchmark_time, strategy_time, framework_time,
// timestamp}}. ReplaySpace::from_cache reads it back. `timestamp`: empty for now.
nlohmann::ordered_json to_kernel_tuner_cache(const InteropData& data, const std::string& timestamp = "");

// A T4 results document: {"schema_version": "1.0.0", "results": [{"timestamp",
// "configuration", "times": {"runtimes": samples}, "measurements": [{"name": "time",
// "value": ms, "unit": "ms"}] (ok only), "objectives": ["time"], "invalidity",
// "correctness": 1 for ok, else 0}]}.
nlohmann::ordered_json to_t4_results(const InteropData& data, const std::string& timestamp = "");

// Where a fact of an imported GPU's identity came from.
enum class GpuFactSource { Unknown, Option, Metadata, KnownGpus };
// "unknown", "option", "metadata", "known-gpus": the names `ktune import --json` prints.
const char* gpu_fact_source_name(GpuFactSource s);

// The GPU that measured imported results, each fact with its source. T4 results carry no
// ktune fingerprint, yet a table is chosen at run time by compute capability: the facts are
// gathered in order, each step filling only what is still unknown (0 or empty):
// imported_gpu_from_options, fill_from_t4_metadata, fill_from_known_gpus.
struct ImportedGpu {
  GpuIdentity gpu;
  GpuFactSource name = GpuFactSource::Unknown;
  GpuFactSource compute_capability = GpuFactSource::Unknown;
  GpuFactSource sm_count = GpuFactSource::Unknown;
  GpuFactSource memory = GpuFactSource::Unknown;
};

// What the command line gave: a non-empty name, cc_major > 0, sm_count > 0, memory_bytes > 0.
ImportedGpu imported_gpu_from_options(const GpuIdentity& given);

// The facts still unknown that the metadata in a T4 results document, or in a T4 metadata
// document, gives. Read from, the first place that gives a fact winning:
//  - Kernel Tuner's environment (the `env` tune_kernel returns) at the top level or under
//    "environment", "metadata" or "metadata.environment": "device_name",
//    "compute_capability" ("90" as Kernel Tuner writes it, "9.0", 90 or [9, 0]) and
//    "device_properties" ("multiProcessorCount" or "MULTIPROCESSOR_COUNT", "totalGlobalMem");
//  - T4 metadata as Kernel Tuner writes it: metadata.environment.device_query."nvidia-smi".
//    nvidia_smi_log.gpu, one GPU or a list of them (used when they are one model):
//    "product_name" and "fb_memory_usage": {"total": "81559 MiB"}.
// A fact given malformed is an Error naming `origin` and the field.
void fill_from_t4_metadata(ImportedGpu& gpu, const nlohmann::ordered_json& doc, const std::string& origin);

// Compute capability and SM count from the known-GPU table (ktune/known_gpus.hpp), when the
// name is in it and the compute capability already known, if any, is the table's: a name
// the table knows on a GPU of another compute capability is another GPU.
void fill_from_known_gpus(ImportedGpu& gpu);

// Who measured the T4 results: T4 has no ktune fingerprint, so the importer names it.
struct T4Import {
  std::string kernel;                     // required for DB records
  std::string key;                        // "M=64,N=64" or empty (a kernel without key)
  GpuIdentity gpu;                        // name and compute capability required (ImportedGpu)
  std::string kernel_hash = "t4-import";  // the fingerprint's kernel version
  std::string nvcc_version = "unknown";
};

// A T4 results file (JSON, or gzipped JSON) parsed, keeping the order of its members.
// Throws Error naming the file when it cannot be read or is not JSON (and saying it was
// to be `expected`: a T4 metadata file is read here too).
nlohmann::ordered_json read_t4_file(const std::filesystem::path& path, const std::string& expected = "T4 results");

// One DbRecord per result: config id from the configuration, values as given, status from
// "invalidity", time from the "time" measurement (converted from its unit to ms; an array
// of values gives the samples), or else the median of "times.runtimes"; samples from
// "times.runtimes" when it holds numbers. Throws Error naming `origin` and the field for
// anything malformed, for a configuration value that is not an integer, for two results of
// one configuration, and for a GPU without a name or compute capability (no GPU could
// choose their table).
std::vector<DbRecord> t4_to_db_records(const nlohmann::ordered_json& doc, const T4Import& who,
                                       const std::string& origin);

// The same as a space to replay: parameters in the order of the first configuration,
// values sorted ascending, configs sorted by values. Malformed input: Error, as above.
ReplaySpace t4_to_replay(const nlohmann::ordered_json& doc, const std::string& origin, const std::string& device = "",
                         const std::string& kernel = "");

}  // namespace ktune
