// The identity of the GPU that measured imported results (ImportedGpu, ktune/interop.hpp):
// the command line's facts, then the metadata's, then the known-GPU table's.
#include <cstdint>
#include <limits>
#include <string>

#include "base/untrusted_json.hpp"
#include "ktune/error.hpp"
#include "ktune/interop.hpp"
#include "ktune/known_gpus.hpp"

namespace ktune {
namespace {

using nlohmann::ordered_json;

// Metadata comes from other tools: messages quote it short and printable.
std::string ig_excerpt(const ordered_json& v) {
  return untrusted_json::printable(v.dump(-1, ' ', false, ordered_json::error_handler_t::replace), 40);
}

// The member `name` of `obj` when `obj` is an object that has it, not null; else nullptr.
const ordered_json* ig_member(const ordered_json* obj, const char* name) {
  if (!obj || !obj->is_object()) return nullptr;
  auto it = obj->find(name);
  return it == obj->end() || it->is_null() ? nullptr : &*it;
}

// "9.0" or "90" (major digits, then one minor digit, as Kernel Tuner writes it).
bool ig_cc_text(const std::string& s, int& major, int& minor) {
  const std::size_t dot = s.find('.');
  const std::string m = dot == std::string::npos ? s.substr(0, s.empty() ? 0 : s.size() - 1) : s.substr(0, dot);
  const std::string n = dot == std::string::npos ? s.substr(s.empty() ? 0 : s.size() - 1) : s.substr(dot + 1);
  const auto digits = [](const std::string& t) {
    return !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!digits(m) || !digits(n) || m.size() > 2 || n.size() != 1 || m[0] == '0') return false;
  major = std::stoi(m);
  minor = n[0] - '0';
  return true;
}

bool ig_cc(const ordered_json& v, int& major, int& minor) {
  if (v.is_string()) return ig_cc_text(v.get<std::string>(), major, minor);
  if (v.is_number()) return ig_cc_text(v.dump(), major, minor);
  if (v.is_array() && v.size() == 2 && v[0].is_number_integer() && v[1].is_number_integer()) {
    const int64_t a = v[0].get<int64_t>(), b = v[1].get<int64_t>();
    if (a < 1 || a > 99 || b < 0 || b > 9) return false;
    major = static_cast<int>(a);
    minor = static_cast<int>(b);
    return true;
  }
  return false;
}

// Where a metadata document says what: each fact is read once, from the first place.
class MetadataReader {
 public:
  MetadataReader(ImportedGpu& gpu, const std::string& origin) : gpu_(gpu), origin_(origin) {}

  // Kernel Tuner's environment object, at `path` ("" for the top level).
  void environment(const ordered_json* env, const std::string& path) {
    if (!env || !env->is_object()) return;
    const std::string at = origin_ + ": " + path + (path.empty() ? "" : ".");
    if (const ordered_json* v = ig_member(env, "device_name")) name(*v, at + "device_name");
    if (const ordered_json* v = ig_member(env, "compute_capability"); v && unknown(gpu_.compute_capability)) {
      if (!ig_cc(*v, gpu_.gpu.cc_major, gpu_.gpu.cc_minor))
        throw Error(at + "compute_capability = " + ig_excerpt(*v) +
                    " is not a compute capability (\"90\", \"9.0\", 90 or [9, 0]); fix it or give --cc");
      gpu_.compute_capability = GpuFactSource::Metadata;
    }
    const ordered_json* props = ig_member(env, "device_properties");
    if (!props || !props->is_object()) return;
    for (const char* key : {"multiProcessorCount", "MULTIPROCESSOR_COUNT"})
      if (const ordered_json* v = ig_member(props, key); v && unknown(gpu_.sm_count)) {
        gpu_.gpu.sm_count = static_cast<int>(count(*v, at + "device_properties." + key, 100000));
        gpu_.sm_count = GpuFactSource::Metadata;
      }
    if (const ordered_json* v = ig_member(props, "totalGlobalMem"); v && unknown(gpu_.memory)) {
      gpu_.gpu.memory_bytes = count(*v, at + "device_properties.totalGlobalMem", uint64_t(INT64_MAX));
      gpu_.memory = GpuFactSource::Metadata;
    }
  }

  // nvidia-smi -q -x as JSON: one GPU, or a list of them on the machine that measured.
  void nvidia_smi(const ordered_json* gpus, const std::string& path) {
    if (!gpus) return;
    const ordered_json list = gpus->is_array() ? *gpus : ordered_json::array({*gpus});
    if (list.empty()) return;
    // Which GPU of several measured is not written: use them only when they are one model.
    const ordered_json* first = ig_member(&list[0], "product_name");
    for (const ordered_json& g : list)
      if (!first || !ig_member(&g, "product_name") || *ig_member(&g, "product_name") != *first) return;
    const std::string at = origin_ + ": " + path + (gpus->is_array() ? "[0]." : ".");
    name(*first, at + "product_name");
    const ordered_json* total = ig_member(ig_member(&list[0], "fb_memory_usage"), "total");
    if (!total || !unknown(gpu_.memory)) return;
    gpu_.gpu.memory_bytes = mib(*total, at + "fb_memory_usage.total");
    gpu_.memory = GpuFactSource::Metadata;
  }

 private:
  static bool unknown(GpuFactSource s) { return s == GpuFactSource::Unknown; }

  void name(const ordered_json& v, const std::string& where) {
    if (!unknown(gpu_.name)) return;
    if (!v.is_string()) throw Error(where + " = " + ig_excerpt(v) + " is not a GPU's name; fix it or give --gpu");
    const std::string s = v.get<std::string>();
    if (s.empty()) return;
    // The driver reports at most 255 bytes, and a DB refuses longer names.
    if (s.size() > 255)
      throw Error(where + " is " + std::to_string(s.size()) + " bytes long; a GPU's name has at most 255");
    gpu_.gpu.name = s;
    gpu_.name = GpuFactSource::Metadata;
  }

  uint64_t count(const ordered_json& v, const std::string& where, uint64_t max) const {
    const bool positive = v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() > 0);
    if (!positive || v.get<uint64_t>() < 1 || v.get<uint64_t>() > max)
      throw Error(where + " = " + ig_excerpt(v) + " is not a whole number from 1 to " + std::to_string(max));
    return v.get<uint64_t>();
  }

  // "81559 MiB", as nvidia-smi writes memory sizes.
  uint64_t mib(const ordered_json& v, const std::string& where) const {
    const std::string s = v.is_string() ? v.get<std::string>() : "";
    const std::size_t space = s.find(' ');
    const std::string n = s.substr(0, space);
    const bool ok = space != std::string::npos && s.substr(space + 1) == "MiB" && !n.empty() && n.size() <= 9 &&
                    n.find_first_not_of("0123456789") == std::string::npos && std::stoull(n) > 0;
    if (!ok) throw Error(where + " = " + ig_excerpt(v) + " is not a memory size like \"81559 MiB\"");
    return std::stoull(n) << 20;
  }

  ImportedGpu& gpu_;
  const std::string& origin_;
};

}  // namespace

const char* gpu_fact_source_name(GpuFactSource s) {
  switch (s) {
    case GpuFactSource::Option:
      return "option";
    case GpuFactSource::Metadata:
      return "metadata";
    case GpuFactSource::KnownGpus:
      return "known-gpus";
    default:
      return "unknown";
  }
}

ImportedGpu imported_gpu_from_options(const GpuIdentity& given) {
  ImportedGpu out;
  out.gpu = given;
  const auto source = [](bool given) { return given ? GpuFactSource::Option : GpuFactSource::Unknown; };
  out.name = source(!given.name.empty());
  out.compute_capability = source(given.cc_major > 0);
  out.sm_count = source(given.sm_count > 0);
  out.memory = source(given.memory_bytes > 0);
  return out;
}

void fill_from_t4_metadata(ImportedGpu& gpu, const ordered_json& doc, const std::string& origin) {
  MetadataReader read(gpu, origin);
  const ordered_json* metadata = ig_member(&doc, "metadata");
  const ordered_json* environment = ig_member(metadata, "environment");
  read.environment(&doc, "");
  read.environment(ig_member(&doc, "environment"), "environment");
  read.environment(metadata, "metadata");
  read.environment(environment, "metadata.environment");
  const ordered_json* smi = ig_member(ig_member(environment, "device_query"), "nvidia-smi");
  read.nvidia_smi(ig_member(ig_member(smi, "nvidia_smi_log"), "gpu"),
                  "metadata.environment.device_query.nvidia-smi.nvidia_smi_log.gpu");
}

void fill_from_known_gpus(ImportedGpu& gpu) {
  if (gpu.name == GpuFactSource::Unknown) return;
  const std::optional<KnownGpu> known = find_known_gpu(gpu.gpu.name);
  if (!known) return;
  if (gpu.compute_capability != GpuFactSource::Unknown &&
      (gpu.gpu.cc_major != known->cc_major || gpu.gpu.cc_minor != known->cc_minor))
    return;
  if (gpu.compute_capability == GpuFactSource::Unknown) {
    gpu.gpu.cc_major = known->cc_major;
    gpu.gpu.cc_minor = known->cc_minor;
    gpu.compute_capability = GpuFactSource::KnownGpus;
  }
  if (gpu.sm_count == GpuFactSource::Unknown && known->sm_count > 0) {
    gpu.gpu.sm_count = known->sm_count;
    gpu.sm_count = GpuFactSource::KnownGpus;
  }
}

}  // namespace ktune
