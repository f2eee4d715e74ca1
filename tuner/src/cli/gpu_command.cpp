// `ktune gpu [--json] [--out FILE]`: the visible GPU's identity (name, compute capability,
// SMs, driver), or why there is none. With --out the JSON is written to the file, and only
// when it changes: the build runs this every time, and the tune steps depend on the file.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "ktune/driver.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/manifest.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {
namespace {

struct GpuOptions {
  std::string out;
  bool json = false;
};

void print_text(const nlohmann::json& doc) {
  if (doc["gpu"].is_null()) {
    std::cout << "no GPU: " << terminal_text(doc["why"].get<std::string>(), 400) << "\n";
    return;
  }
  const GpuIdentity g = GpuIdentity::from_json(doc["gpu"]);
  std::cout << terminal_text(g.name, 80) << ": sm_" << g.cc_major << g.cc_minor << ", " << g.sm_count << " SMs, "
            << g.l2_bytes / (1024 * 1024) << " MiB L2, driver " << g.driver_version << " (" << doc["count"].get<int>()
            << " GPU(s) visible; this is GPU 0)\n";
}

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
  // GPU names come from the driver; dump() would throw on bytes that are not UTF-8.
  const std::string text = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (!o.out.empty()) write_file_if_changed(o.out, text);
  if (o.json)
    std::cout << text;
  else if (o.out.empty())
    print_text(doc);
}

}  // namespace

void add_gpu_command(CLI::App& app) {
  auto o = std::make_shared<GpuOptions>();
  CLI::App* sub = app.add_subcommand("gpu", "Print the visible GPU's identity, or why there is none");
  sub->add_flag("--json", o->json, "print it as JSON: {\"gpu\": {name, cc_major, ...} or null, ...}");
  sub->add_option("--out", o->out, "write the JSON to this file, only when it changed");
  sub->callback([o] { run(*o); });
}

}  // namespace ktune::cli
