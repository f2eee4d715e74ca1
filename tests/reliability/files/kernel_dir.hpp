#pragma once
// A kernel's build directory as configure and the build leave it, made without nvcc:
// `ktune plan` writes the manifest, the test writes compile records, stand-in cubins and a
// tuning DB (a GPU's measurements of two keys) for the bake to read.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "temp_dir.hpp"
#include "tool_run.hpp"

namespace ktune::file_faults {

class KernelDir {
 public:
  KernelDir();

  const std::filesystem::path& root() const { return tmp_.path(); }
  std::filesystem::path dir() const { return root() / "build" / "_ktune" / "k"; }
  std::filesystem::path manifest() const { return dir() / "manifest.json"; }
  std::filesystem::path record(const std::string& id) const { return dir() / "records" / (id + ".json"); }
  std::filesystem::path db_dir() const { return root() / "dbs"; }
  std::filesystem::path db() const { return db_dir() / "NVIDIA_H200.json"; }
  std::filesystem::path bake_dir() const { return root() / "baked"; }
  std::filesystem::path generated() const { return bake_dir() / "ktune_k_baked.cpp"; }

  const nlohmann::json& manifest_doc() const { return manifest_doc_; }
  const std::string& default_id() const { return default_id_; }
  const std::string& other_id() const { return other_id_; }  // the winner of key M=3,N=4
  const std::string& hash() const { return hash_; }

  ToolRun cubins() const;
  ToolRun bake() const;
  ToolRun ktune(const std::vector<std::string>& args) const;

 private:
  test_support::TempDir tmp_{"ktune_file_faults"};
  nlohmann::json manifest_doc_;
  std::string default_id_, other_id_, hash_;
};

}  // namespace ktune::file_faults
