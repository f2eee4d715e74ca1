#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/plan_bake.hpp"
#include "ktune/cuda_arch.hpp"
#include "ktune/db.hpp"
#include "ktune/db_tables.hpp"
#include "ktune/error.hpp"
#include "ktune/key.hpp"
#include "ktune/measurement.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// A DB's key, "K=1024,M=1024,N=1024", as the values of `dims` in order (a baked table's
// positional key), or nothing when it is not a key of those dimensions.
std::optional<std::vector<int64_t>> key_values(const std::string& text, const std::vector<std::string>& dims) {
  Key key;
  try {
    key = parse_key(text, KeyText::Written);
  } catch (const Error&) {
    return std::nullopt;
  }
  if (key.size() != dims.size()) return std::nullopt;
  std::vector<int64_t> out;
  for (const auto& d : dims) {
    auto it = key.find(d);
    if (it == key.end()) return std::nullopt;
    out.push_back(it->second);
  }
  return out;
}

struct Candidate {
  Fingerprint fp;
  const std::map<std::string, std::vector<DbEntry>>* keys;  // key id -> entries
  std::string file;
  std::size_t ok = 0;
  std::string arch;  // the listed architecture whose cubins its GPU runs
};

// Whether an entry's values are a config of the manifest's space. Db checked that the id
// is the id of the values, so a config found here has the entry's id.
bool in_space(const Manifest& m, const json& values) {
  if (!values.is_object() || values.size() != m.spec.parameters.size()) return false;
  std::vector<int64_t> row;
  for (const auto& p : m.spec.parameters) {
    auto v = values.find(p.name);
    if (v == values.end() || !v->is_number_integer()) return false;
    row.push_back(v->get<int64_t>());
  }
  return m.configs.find(row).has_value();
}

// The tuned table of one fingerprint: per key the fastest ok config that compiled here.
BakeTable make_table(const Candidate& c, const BakePlan& plan, const Manifest& m,
                     const std::function<bool(const std::string&)>& compiled, std::vector<std::string>& warnings) {
  BakeTable t;
  t.gpu = c.fp.gpu;
  t.arch = c.arch;
  t.source = c.file;
  std::map<std::string, std::vector<double>> ratios;  // config -> time / key's best, per key
  std::size_t bad_keys = 0, outside = 0;
  std::string first_outside;
  for (const auto& [key_text, entries] : *c.keys) {
    auto key = key_values(key_text, plan.key_dims);
    if (!key) {
      ++bad_keys;
      continue;
    }
    std::map<std::string, double> times;
    for (const DbEntry& e : entries) {
      if (!in_space(m, e.values)) {
        if (outside++ == 0) first_outside = "key \"" + key_text + "\", config " + e.config_id;
        continue;
      }
      if (!compiled(e.config_id)) continue;
      const Measurement& r = e.measurement;
      if (r.status != Status::Ok || r.abandoned || !std::isfinite(r.median_ms) || r.median_ms <= 0) continue;
      times[e.config_id] = r.median_ms;
    }
    if (times.empty()) continue;
    auto best =
        std::min_element(times.begin(), times.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    t.entries.push_back({*key, best->first, best->second});
    for (const auto& [id, ms] : times) ratios[id].push_back(ms / best->second);
  }
  if (bad_keys)
    warnings.push_back(c.file + ": " + std::to_string(bad_keys) +
                       " key(s) whose dimensions are not the kernel's KEYS (" + std::to_string(plan.key_dims.size()) +
                       " dimensions) were skipped");
  if (outside)
    warnings.push_back(c.file + ": left out " + std::to_string(outside) + " entr" + (outside == 1 ? "y" : "ies") +
                       " whose values are not a config of the kernel's space (first: " + first_outside +
                       "); a DB of an older space or an edited one");
  // Common best: of the configs measured ok on every key, the smallest geometric mean of
  // slowdowns against each key's best.
  double best_score = INFINITY;
  for (const auto& [id, r] : ratios) {
    if (r.size() != t.entries.size()) continue;
    double score = 0;
    for (double x : r) score += std::log(x);
    if (score < best_score) {
      best_score = score;
      t.common_best = id;
    }
  }
  if (t.common_best.empty() && !t.entries.empty()) t.common_best = t.entries.front().config_id;
  return t;
}

}  // namespace

json BakePlan::to_json() const {
  json tables_json = json::array();
  for (const auto& t : tables) {
    json entries = json::array();
    for (const auto& e : t.entries)
      entries.push_back({{"key", e.key}, {"config", e.config_id}, {"best_ms", e.best_ms}});
    tables_json.push_back({{"gpu", t.gpu.to_json()},
                           {"arch", t.arch},
                           {"source", t.source},
                           {"common_best", t.common_best},
                           {"entries", entries}});
  }
  return {{"kernel", kernel}, {"key_dims", key_dims}, {"tables", tables_json}, {"warnings", warnings}, {"note", note}};
}

BakePlan plan_bake(const Manifest& m, const std::string& kernel_hash, const std::vector<fs::path>& db_dirs,
                   const std::set<std::string>& compiled) {
  return plan_bake_if(m, kernel_hash, db_dirs, [&](const std::string& id) { return compiled.count(id) > 0; });
}

BakePlan plan_bake_if(const Manifest& m, const std::string& kernel_hash, const std::vector<fs::path>& db_dirs,
                      const std::function<bool(const std::string&)>& compiled) {
  std::map<std::string, BakeArch> archs;
  for (const auto& a : m.compile.listed_archs()) archs[a] = {kernel_hash, compiled};
  return plan_bake_archs(m, archs, db_dirs);
}

namespace {

// The architectures a build lists, and which of them a GPU runs the cubins of.
struct ListedArchs {
  std::vector<BakedArch> archs;
  std::vector<std::string> texts;  // as the build spells them
  std::string names;               // the texts as a message lists them

  explicit ListedArchs(const std::map<std::string, BakeArch>& given) {
    for (const auto& [text, view] : given)
      if (auto a = parse_cuda_arch(text)) {
        archs.push_back(*a);
        texts.push_back(text);
        names += (names.empty() ? "" : ", ") + text;
      }
  }
  const std::string* arch_of(const GpuIdentity& g) const {
    const auto a = cubin_arch_for(archs, g.cc_major, g.cc_minor);
    if (!a) return nullptr;
    for (std::size_t i = 0; i < archs.size(); ++i)
      if (archs[i].major == a->major && archs[i].minor == a->minor && archs[i].arch_specific == a->arch_specific)
        return &texts[i];
    return nullptr;
  }
};

// Why a GPU of a DB file can never choose its table in this build.
std::string unserved_reason(const GpuIdentity& g, const std::string& file, const std::string& names) {
  const std::string where = g.name + " (" + file + ")";
  if (g.cc_major <= 0)
    return where + " records compute capability " + std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor) +
           " (an import that did not know the GPU): no GPU could ever choose its table, so it is left out; "
           "import it again naming the GPU's compute capability (ktune import --cc)";
  return where + " is sm_" + std::to_string(g.cc_major) + std::to_string(g.cc_minor) +
         ", which none of the architectures this build lists (" + names +
         ") runs cubins for: no GPU could choose its table, so it is left out; add " + std::to_string(g.cc_major) +
         std::to_string(g.cc_minor) + " to CMAKE_CUDA_ARCHITECTURES (or KTUNE_CUDA_ARCH) to bake it";
}

// The plan built directory by directory: a GPU model's table comes from the first directory
// that has usable results for it, from its fingerprint with the most ok results there.
class BakePlanner {
 public:
  BakePlanner(const Manifest& m, const std::map<std::string, BakeArch>& archs) : m_(m), archs_(archs), listed_(archs) {
    plan_.kernel = m.kernel;
    if (!m.keys.empty())
      for (const auto& [name, value] : m.keys.front()) plan_.key_dims.push_back(name);
  }

  void read_directory(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return;
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(dir, ec))
      if (f.path().extension() == ".json" && f.is_regular_file(ec)) files.push_back(f.path());
    std::sort(files.begin(), files.end());
    std::map<std::string, Candidate> best;  // by GPU model: the fingerprint with most ok results
    for (const fs::path& file : files)
      if (const DbTables* tables = load(file))
        for (const DbTable& table : tables->tables) consider(table, file.string(), best);
    for (const auto& [slug, c] : best) {
      BakeTable t = make_table(c, plan_, m_, archs_.at(c.arch).compiled, plan_.warnings);
      if (t.entries.empty()) continue;  // nothing usable here: a later directory may have it
      taken_.insert(slug);
      plan_.tables.push_back(std::move(t));
    }
  }

  BakePlan finish() {
    for (const auto& [slug, why] : unserved_)
      if (!taken_.count(slug)) plan_.warnings.push_back(why);
    if (stale_)
      plan_.warnings.push_back(std::to_string(stale_) +
                               " fingerprint(s) of an earlier version of the kernel "
                               "(source, headers, flags or space changed) were not used");
    if (plan_.tables.empty()) {
      plan_.note = "no tuning results for this kernel version: baked the DEFAULT config only";
    } else {
      plan_.note = "baked";
      for (std::size_t i = 0; i < plan_.tables.size(); ++i)
        plan_.note += std::string(i ? ";" : "") + " " + plan_.tables[i].gpu.name + " (" +
                      std::to_string(plan_.tables[i].entries.size()) + " keys, from " + plan_.tables[i].source + ")";
    }
    return std::move(plan_);
  }

 private:
  // A DB file of this kernel, read; nullptr (and a warning) for any other file.
  const DbTables* load(const fs::path& file) {
    Db::Loaded loaded;
    try {
      loaded = Db::load_document(file);
    } catch (const Error& e) {
      plan_.warnings.push_back(std::string("skipped ") + e.what());
      return nullptr;
    }
    if (loaded.document.value("kernel", "") != m_.kernel) {
      plan_.warnings.push_back("skipped " + file.string() + ": a DB of another kernel");
      return nullptr;
    }
    if (loaded.skipped) plan_.warnings.push_back(loaded.warning);
    documents_.push_back(DbTables::of(loaded.document));
    return &documents_.back();
  }

  // One fingerprint's table: a candidate for its GPU model unless no listed architecture
  // serves that GPU, the kernel changed since, or an earlier directory gave the model a table.
  void consider(const DbTable& table, const std::string& file, std::map<std::string, Candidate>& best) {
    Candidate c{table.fingerprint, &table.keys, file};
    const std::string slug = c.fp.gpu.model_slug();
    const std::string* arch = listed_.arch_of(c.fp.gpu);
    if (!arch) {
      unserved_.emplace(slug, unserved_reason(c.fp.gpu, file, listed_.names));
      return;
    }
    if (c.fp.kernel_hash != archs_.at(*arch).kernel_hash) {
      ++stale_;
      return;
    }
    c.arch = *arch;
    if (taken_.count(slug)) return;
    for (const auto& [key, entries] : *c.keys)
      for (const DbEntry& e : entries) c.ok += e.measurement.status == Status::Ok;
    auto it = best.find(slug);
    if (it == best.end() || c.ok > it->second.ok) best[slug] = c;
  }

  const Manifest& m_;
  const std::map<std::string, BakeArch>& archs_;
  ListedArchs listed_;
  BakePlan plan_;
  std::map<std::string, std::string> unserved_;  // GPU model -> why no GPU could choose its table
  std::set<std::string> taken_;                  // GPU models given a table by an earlier directory
  std::size_t stale_ = 0;
  std::deque<DbTables> documents_;  // kept alive and in place: candidates point into them
};

}  // namespace

BakePlan plan_bake_archs(const Manifest& m, const std::map<std::string, BakeArch>& archs,
                         const std::vector<fs::path>& db_dirs) {
  BakePlanner planner(m, archs);
  for (const fs::path& dir : db_dirs) planner.read_directory(dir);
  return planner.finish();
}

}  // namespace ktune
