#pragma once
// Compiling the configs of an on-demand kernel (Manifest::on_demand) when they are wanted:
// `ninja -f <kernel dir>/on_demand.ninja -j <jobs> <records>...`. That file has its own
// Ninja log (in <kernel dir>/on_demand/), so the tuner and the bake can run it from inside
// a running build without touching the build's files.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "ktune/manifest.hpp"

namespace ktune {

class OnDemandBuild {
 public:
  // `kernel_dir`: where manifest.json and on_demand.ninja are. `ninja`: the program.
  OnDemandBuild(std::filesystem::path kernel_dir, std::string ninja, unsigned jobs);

  struct Result {
    int exit_code = 0;      // Ninja's: non-zero when ktune itself failed, not when a config did not compile
    double seconds = 0;     // wall time
    std::size_t asked = 0;  // configs asked for
  };
  // Brings the compile records of `configs` up to date; Ninja's output goes to log().
  // Throws Error when Ninja cannot be started.
  Result build(const std::vector<const ManifestConfig*>& configs) const;

  std::filesystem::path log() const { return kernel_dir_ / "on_demand" / "ninja.log"; }
  unsigned jobs() const { return jobs_; }

 private:
  std::filesystem::path kernel_dir_;
  std::string ninja_;
  unsigned jobs_;
};

}  // namespace ktune
