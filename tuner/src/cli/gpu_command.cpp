// `ktune gpu [--out FILE]`: the visible GPU's identity (name, compute capability, SMs,
// driver), or why there is none. With --out the file is rewritten only when it changes:
// the build runs this every time, and the tune steps depend on the file.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "ktune/driver.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/manifest.hpp"

namespace ktune::cli {
namespace {

struct GpuOptions {
  std::string out;
};

void run(const GpuOptions& o) {
  nlohmann::json doc;
  std::string why;
  const Driver* d = Driver::get_with_gpu(&why);
  if (d) {
    int count = 0;
    d->cuDeviceGetCount(&count);
    CUdevice device;
    d->check(d->cuDeviceGet(&device, 0), "opening GPU 0");
    doc = {{"gpu", query_gpu(*d, device).to_json()}, {"count", count}};
  } else {
    doc = {{"gpu", nullptr}, {"why", why}};
  }
  if (o.out.empty()) {
    std::cout << doc.dump(2) << "\n";
    return;
  }
  write_file_if_changed(o.out, doc.dump(2) + "\n");
}

}  // namespace

void add_gpu_command(CLI::App& app) {
  auto o = std::make_shared<GpuOptions>();
  CLI::App* sub = app.add_subcommand("gpu", "Print the visible GPU's identity, or why there is none");
  sub->add_option("--out", o->out, "write it to this file, only when it changed");
  sub->callback([o] { run(*o); });
}

}  // namespace ktune::cli
