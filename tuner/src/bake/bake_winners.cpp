#include "ktune/bake_winners.hpp"

#include <map>
#include <memory>
#include <set>

#include "ktune/compile_pool.hpp"
#include "ktune/compile_record.hpp"
#include "ktune/error.hpp"
#include "ktune/fingerprint.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

// The configs of the space whose compile record says "ok": found through the records
// directory, so that a space of millions costs what was compiled, not what could be.
std::set<std::string> compiled_configs(const Manifest& m, const fs::path& kernel_dir) {
  std::set<std::string> ok;
  std::error_code ec;
  for (fs::directory_iterator it(kernel_dir / "records", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".json") continue;
    const std::string id = it->path().stem().string();
    if (!m.configs.find_id(id)) continue;
    if (CompileRecord::read(it->path()).status == "ok") ok.insert(id);
  }
  return ok;
}

// The configs a table launches: each key's best and the common best.
std::set<std::string> winners(const BakeTable& table) {
  std::set<std::string> ids;
  for (const auto& e : table.entries) ids.insert(e.config_id);
  if (!table.common_best.empty()) ids.insert(table.common_best);
  return ids;
}

// One listed architecture: the manifest compiling for it, where its files are, the kernel
// hash its DBs carry, and which configs' cubins for it are ok, failed or already asked for.
struct ArchState {
  Manifest manifest;
  fs::path dir;
  std::string kernel_hash;
  std::set<std::string> compiled, failed, asked;
  std::unique_ptr<CompilePool> pool;

  void compile(const std::vector<ManifestConfig>& configs, unsigned jobs) {
    if (!pool) pool = std::make_unique<CompilePool>(manifest, dir, jobs);
    pool->compile_all(configs);
    for (const auto& c : configs) (CompileRecord::says_ok(dir / c.record()) ? compiled : failed).insert(c.id);
  }
};

class WinnerBake {
 public:
  WinnerBake(const Manifest& m, const std::string& manifest_path, unsigned jobs) : m_(m), jobs_(jobs) {
    const fs::path kernel_dir = fs::path(manifest_path).parent_path();
    for (const auto& a : m.compile.listed_archs()) {
      ArchState& st = archs_[a];
      st.manifest = for_arch(m, a);
      st.dir = arch_kernel_dir(m, kernel_dir, a);
      st.compiled = compiled_configs(st.manifest, st.dir);
    }
    if (!primary().compiled.count(m.default_id))
      throw Error("ktune bake: " + m.kernel + ": the DEFAULT config " + m.default_id + " did not compile (see " +
                  (kernel_dir / "logs").string() + "); every build needs it as the fallback");
    for (auto& [a, st] : archs_) st.kernel_hash = kernel_hash(manifest_path, a);
  }

  // Each architecture besides the one the build compiled needs the DEFAULT: the fallback of
  // every GPU of that architecture.
  void compile_other_defaults() {
    const ManifestConfig d = m_.configs[*m_.configs.find_id(m_.default_id)];
    for (auto& [a, st] : archs_) {
      if (&st == &primary()) continue;
      st.asked.insert(m_.default_id);
      st.compile({d}, jobs_);
      if (!st.compiled.count(d.id))
        throw Error("ktune bake: " + m_.kernel + ": the DEFAULT config " + m_.default_id + " did not compile for sm_" +
                    a + " (see " + (st.dir / d.log()).string() +
                    "); a kernel that needs a newer architecture "
                    "names it with ARCH in ktune_add_kernel(), or leave " +
                    a + " out of CMAKE_CUDA_ARCHITECTURES");
    }
  }

  // What the build compiled whole is taken as it is; else the winners a DB names may not be
  // built yet (or built from older sources): plan as if every config were compiled, compile
  // the winners (the pool skips what is current), and plan again, until no new winner comes.
  void compile_winners(const std::vector<fs::path>& db_dirs) {
    std::map<std::string, BakeArch> views = arch_views([this](const ArchState& st) {
      const bool as_built = &st == &primary() && !m_.on_demand;
      return [this, &st, as_built](const std::string& id) {
        return as_built ? st.compiled.count(id) > 0 : !st.failed.count(id) && m_.configs.find_id(id).has_value();
      };
    });
    for (;;) {
      std::map<std::string, std::vector<ManifestConfig>> wanted;
      for (const auto& table : plan_bake_archs(m_, views, db_dirs).tables) {
        ArchState& st = archs_.at(table.arch);
        if (&st == &primary() && !m_.on_demand) continue;
        for (const auto& id : winners(table))
          if (st.asked.insert(id).second) wanted[table.arch].push_back(m_.configs[*m_.configs.find_id(id)]);
      }
      if (wanted.empty()) return;
      for (auto& [a, configs] : wanted) archs_.at(a).compile(configs, jobs_);
    }
  }

  // The plan over what is compiled now.
  BakePlan plan(const std::vector<fs::path>& db_dirs) const {
    return plan_bake_archs(m_, arch_views([](const ArchState& st) {
                             return [&st](const std::string& id) { return st.compiled.count(id) > 0; };
                           }),
                           db_dirs);
  }

 private:
  const ArchState& primary() const { return archs_.at(m_.compile.arch); }

  template <class MakeTest>
  std::map<std::string, BakeArch> arch_views(MakeTest make_test) const {
    std::map<std::string, BakeArch> views;
    for (const auto& [a, st] : archs_) views[a] = {st.kernel_hash, make_test(st)};
    return views;
  }

  const Manifest& m_;
  unsigned jobs_;
  std::map<std::string, ArchState> archs_;
};

}  // namespace

BakePlan plan_bake_compiling_winners(const Manifest& m, const std::string& manifest_path,
                                     const std::vector<fs::path>& db_dirs, unsigned jobs) {
  WinnerBake bake(m, manifest_path, jobs);
  bake.compile_other_defaults();
  bake.compile_winners(db_dirs);
  return bake.plan(db_dirs);
}

}  // namespace ktune
