#include "ktune/gpu_identity.hpp"

#include <cctype>
#include <cstdint>
#include <limits>

#include <nlohmann/json.hpp>

#include "base/untrusted_json.hpp"
#include "ktune/driver.hpp"
#include "ktune/error.hpp"

namespace ktune {

using nlohmann::json;

namespace {

using untrusted_json::count_field;
using untrusted_json::text_field;

int int_field(const json& obj, const char* key, const char* where) {
  return static_cast<int>(count_field(obj, key, where, std::numeric_limits<int>::max()));
}

}  // namespace

json GpuIdentity::to_json() const {
  json j = {{"name", name},
            {"cc_major", cc_major},
            {"cc_minor", cc_minor},
            {"sm_count", sm_count},
            {"driver_version", driver_version},
            {"l2_bytes", l2_bytes}};
  if (memory_bytes) j["memory_bytes"] = memory_bytes;  // absent in DBs written before it
  return j;
}

GpuIdentity GpuIdentity::from_json(const json& j) {
  const char* where = "gpu";
  if (!j.is_object()) throw Error("gpu: must be an object, got " + json_excerpt(j));
  GpuIdentity g;
  g.name = text_field(j, "name", where);
  // The driver reports at most 255 bytes; a longer name is damage, or a file made to bloat
  // the baked tables (each GPU's name is a string literal there).
  if (g.name.size() > 255)
    throw Error("gpu: \"name\" is " + std::to_string(g.name.size()) + " bytes long; a GPU's name has at most 255");
  g.cc_major = int_field(j, "cc_major", where);
  g.cc_minor = int_field(j, "cc_minor", where);
  g.sm_count = int_field(j, "sm_count", where);
  g.driver_version = int_field(j, "driver_version", where);
  g.l2_bytes = count_field(j, "l2_bytes", where, std::numeric_limits<uint64_t>::max());
  if (j.contains("memory_bytes"))
    g.memory_bytes = count_field(j, "memory_bytes", where, std::numeric_limits<uint64_t>::max());
  return g;
}

std::string GpuIdentity::model_slug() const {
  std::string slug;
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (u < 128 && std::isalnum(u))
      slug += c;
    else if (!slug.empty() && slug.back() != '_')
      slug += '_';
  }
  while (!slug.empty() && slug.back() == '_') slug.pop_back();
  // A name of symbols only still needs a file name.
  return slug.empty() ? "unknown_gpu" : slug;
}

GpuIdentity query_gpu(const Driver& d, int device) {
  const GpuInfo info = query_gpu_info(d, device);
  GpuIdentity g;
  g.name = info.name;
  g.cc_major = info.cc_major;
  g.cc_minor = info.cc_minor;
  g.sm_count = info.sm_count;
  g.memory_bytes = info.memory_bytes;
  int l2 = 0;
  d.check(d.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device), "reading a GPU attribute");
  g.l2_bytes = static_cast<uint64_t>(l2);
  d.check(d.cuDriverGetVersion(&g.driver_version), "reading the driver version");
  return g;
}

}  // namespace ktune
