#include "ktune/tune_prior.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "ktune/db_tables.hpp"
#include "ktune/error.hpp"
#include "ktune/key.hpp"

namespace ktune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// How unlike `self` a GPU is: another architecture far more than another SM count.
double gpu_unlikeness(const GpuIdentity& a, const GpuIdentity& self) {
  const double arch = a.cc_major == self.cc_major ? (a.cc_minor == self.cc_minor ? 0 : 1) : 10;
  const double sms = a.sm_count > 0 && self.sm_count > 0 ? std::fabs(std::log(double(a.sm_count) / self.sm_count)) : 1;
  return arch + sms;
}

// Sum over dimensions of |log(a/b)|; infinite when the dimensions differ or a value is not positive.
double prior_key_distance(const Key& a, const Key& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double d = 0;
  for (const auto& [name, v] : a) {
    auto it = b.find(name);
    if (it == b.end()) return std::numeric_limits<double>::infinity();
    if (v == it->second) continue;
    if (v <= 0 || it->second <= 0) return std::numeric_limits<double>::infinity();
    d += std::fabs(std::log(double(v) / double(it->second)));
  }
  return d;
}

// A DB's key id read as a --key is; {} when it is not one.
Key prior_key_of(const std::string& id) {
  try {
    return parse_key(id);
  } catch (const Error&) {
    return {};
  }
}

}  // namespace

std::vector<DbTables> prior_documents(const Manifest& m, const std::vector<fs::path>& dirs, const fs::path& skip) {
  std::vector<DbTables> docs;
  std::set<fs::path> seen;
  if (!skip.empty()) {
    std::error_code ec;
    seen.insert(fs::weakly_canonical(skip, ec));
  }
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path p = fs::weakly_canonical(it->path(), ec);
      if (it->path().extension() != ".json" || !seen.insert(p).second) continue;
      try {
        DbTables doc = DbTables::load(it->path());
        if (doc.kernel == m.kernel) docs.push_back(std::move(doc));
      } catch (const std::exception&) {
      }
    }
  }
  return docs;
}

TunePrior tune_prior(const Manifest& m, const std::vector<DbTables>& docs, const Fingerprint& self, const Key& key) {
  const std::string self_digest = self.digest();
  // Every (fingerprint, key) at hand but this one's own measurements of `key`, the most
  // alike first: GPU unlikeness plus key distance, so that another architecture weighs
  // more than any key, and this GPU's nearest other key competes with other GPUs of its
  // architecture at this key.
  struct Candidate {
    double distance;
    std::string gpu;
    std::string key_id;
    const std::vector<DbEntry>* entries;
  };
  std::vector<Candidate> candidates;
  for (const auto& doc : docs)
    for (const DbTable& t : doc.tables) {
      const bool is_self = t.digest == self_digest;
      for (const auto& [id, entries] : t.keys) {
        const Key k = prior_key_of(id);
        if (is_self && k == key) continue;  // this key's own results resume the search; they are no prior
        const double d = prior_key_distance(k, key);
        if (!std::isfinite(d)) continue;
        candidates.push_back(
            {(is_self ? 0.0 : gpu_unlikeness(t.fingerprint.gpu, self.gpu)) + d, t.fingerprint.gpu.name, id, &entries});
      }
    }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.distance < b.distance; });
  // A parameter an entry lacks was added to the kernel after it was measured: the entry
  // stands for the DEFAULT's value of it, the value closest to what the kernel did before.
  const std::vector<int64_t> default_values = m.configs.values(m.default_index());
  for (const auto& c : candidates) {
    std::vector<std::pair<double, std::size_t>> timed;
    std::set<std::size_t> taken;
    for (const DbEntry& e : *c.entries) {
      if (e.measurement.status != Status::Ok || e.measurement.abandoned) continue;
      std::vector<int64_t> values;
      for (std::size_t i = 0; i < m.spec.parameters.size(); ++i) {
        const json& v = e.values.value(m.spec.parameters[i].name, json());
        if (v.is_null()) {
          values.push_back(default_values[i]);
          continue;
        }
        if (!v.is_number_integer()) break;
        values.push_back(v.get<int64_t>());
      }
      if (values.size() != m.spec.parameters.size()) continue;
      if (auto index = m.configs.find(values); index && taken.insert(*index).second)
        timed.emplace_back(e.measurement.median_ms, *index);
    }
    if (timed.empty()) continue;
    std::stable_sort(timed.begin(), timed.end());
    TunePrior prior;
    for (const auto& [ms, index] : timed) prior.configs.push_back(index);
    prior.from = c.gpu + " at key " + c.key_id;
    return prior;
  }
  return {};
}

}  // namespace ktune
