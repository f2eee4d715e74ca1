#include "kernel_dir.hpp"

#include <stdexcept>

#include "ktune/compile_record.hpp"
#include "ktune/db.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/manifest.hpp"
#include "test_files.hpp"

namespace ktune::file_faults {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::write;

KernelDir::KernelDir() {
  const fs::path source = root() / "src" / "k.cu";
  write(source, "extern \"C\" __global__ void k_entry(float* x) { x[0] = TM * TN; }\n");
  const ToolRun plan = ktune({"plan",
                              "--kernel",
                              "k",
                              "--source",
                              source.string(),
                              "--out-dir",
                              dir().string(),
                              "--param",
                              "TM=1,2",
                              "--param",
                              "TN=4,8",
                              "--where",
                              "TM * TN <= 16",
                              "--default",
                              "TM=1 TN=4",
                              "--key",
                              "M=1 N=2",
                              "--key",
                              "M=3 N=4",
                              "--entry",
                              "k_entry",
                              "--arch",
                              "90",
                              "--nvcc",
                              "/usr/local/cuda/bin/nvcc",
                              "--flag",
                              "-O2",
                              "--include-dir",
                              (root() / "src").string()});
  if (plan.exit_code != 0) throw std::runtime_error("ktune plan failed: " + plan.err);
  manifest_doc_ = read_json_file(manifest());
  const Manifest m = Manifest::from_json(manifest_doc_, manifest().string());
  default_id_ = m.default_id;
  json other_values;
  for (const ManifestConfig& c : m.configs) {
    CompileRecord r;
    r.status = "ok";
    r.wall_s = 1.5;
    r.cpu_s = 1.25;
    r.log = (dir() / c.log()).string();
    r.cubin = (dir() / c.cubin()).string();
    write(record(c.id), r.to_json().dump(2) + "\n");
    write(dir() / c.cubin(), std::string("\x7f"
                                         "ELF stand-in for ",
                                         19) +
                                 c.id);
    if (c.id != default_id_) {
      other_id_ = c.id;
      other_values = {{"TM", c.values[0]}, {"TN", c.values[1]}};
    }
  }
  hash_ = kernel_hash(manifest().string());

  Fingerprint fp;
  fp.kernel_hash = hash_;
  fp.nvcc_version = "13.0.88";
  fp.gpu = {.name = "NVIDIA H200",
            .cc_major = 9,
            .cc_minor = 0,
            .sm_count = 132,
            .driver_version = 13000,
            .l2_bytes = 62914560};
  Measurement fast;
  fast.samples_ms = {0.5, 0.51, 0.49};
  fast.median_ms = 0.5;
  fast.resources.registers = 32;
  fast.message = "";
  Measurement slow = fast;
  slow.samples_ms = {2, 2, 2};
  slow.median_ms = 2;
  Db tuned(db(), "k");
  tuned.record_many({{fp, "M=1,N=2", default_id_, {{"TM", 1}, {"TN", 4}}, fast},
                     {fp, "M=3,N=4", other_id_, other_values, fast},
                     {fp, "M=3,N=4", default_id_, {{"TM", 1}, {"TN", 4}}, slow}});
}

ToolRun KernelDir::ktune(const std::vector<std::string>& args) const {
  return run_tool(ktune_tool(), args, root() / "run");
}

ToolRun KernelDir::cubins() const { return ktune({"cubins", manifest().string()}); }

ToolRun KernelDir::bake() const {
  return ktune(
      {"bake", "--manifest", manifest().string(), "--out-dir", bake_dir().string(), "--db-dir", db_dir().string()});
}

}  // namespace ktune::file_faults
