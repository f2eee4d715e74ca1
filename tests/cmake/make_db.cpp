// Writes one measurement into a tuning DB, as a tuner on some GPU would have: for tests
// of the bake step without a GPU.
// usage: make_db <db file> <manifest> <kernel hash> <GPU name> <sm count> <config id> <ms> [<key> [<cc>]]
//   <manifest>: the kernel's manifest.json, which names the kernel and the config's values
//   <key>: "M=1024 N=512" (default: no key dimensions)
//   <cc>: the GPU's compute capability, e.g. 8.0 (default: 9.0)
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "ktune/db.hpp"
#include "ktune/error.hpp"
#include "ktune/key.hpp"
#include "ktune/manifest.hpp"

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr, "usage: %s <db> <manifest> <kernel hash> <GPU> <SMs> <config id> <ms> [<key> [<cc>]]\n",
                 argv[0]);
    return 2;
  }
  try {
    ktune::Fingerprint fp;
    fp.kernel_hash = argv[3];
    fp.nvcc_version = "13.0.0";
    fp.gpu.name = argv[4];
    fp.gpu.cc_major = 9;
    if (argc > 9 && std::sscanf(argv[9], "%d.%d", &fp.gpu.cc_major, &fp.gpu.cc_minor) != 2)
      throw ktune::Error(std::string("<cc> '") + argv[9] + "' is not like 8.0");
    fp.gpu.sm_count = std::atoi(argv[5]);
    fp.gpu.driver_version = 13000;
    const ktune::Key key = argc > 8 ? ktune::parse_key(argv[8]) : ktune::Key{};
    ktune::Measurement m;
    m.median_ms = std::atof(argv[7]);
    m.samples_ms = {m.median_ms, m.median_ms, m.median_ms};
    // A DB entry carries its config's values; readers drop one whose id is not theirs.
    const ktune::Manifest manifest = ktune::Manifest::from_json(ktune::read_json_file(argv[2]), argv[2]);
    const auto index = manifest.configs.find_id(argv[6]);
    if (!index) throw ktune::Error(std::string(argv[6]) + " is not a config of " + argv[2]);
    const ktune::ManifestConfig c = manifest.configs[*index];
    nlohmann::json values = nlohmann::json::object();
    for (std::size_t k = 0; k < c.values.size(); ++k) values[manifest.spec.parameters[k].name] = c.values[k];
    ktune::Db(argv[1], manifest.kernel).record(fp, ktune::key_id(key), argv[6], values, m);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_db: %s\n", e.what());
    return 1;
  }
  return 0;
}
