// `ktune space FILE [--json] [--configs] [--max-points N]`: size of the space a T1 spec or a
// ktune manifest declares, or its configs.
#include <chrono>
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "ktune/build_plan.hpp"
#include "ktune/manifest.hpp"
#include "ktune/t1_spec.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {
namespace {

struct SpaceOptions {
  std::string file;
  bool json = false;
  bool configs = false;
  uint64_t max_points = 1'000'000'000;
};

// The spec of a T1 file or a manifest, and which of the two it is.
std::pair<SpaceSpec, std::string> read_spec(const std::string& file) {
  nlohmann::json doc = read_json_file(file);
  if (is_t1_spec(doc)) return {read_t1_spec(doc, file), "t1"};
  if (is_manifest(doc)) return {Manifest::from_json(doc, file).spec, "manifest"};
  throw Error(file +
              ": neither a T1 spec (no \"ConfigurationSpace\") nor a ktune manifest "
              "(no \"schema\": \"ktune.manifest\")");
}

// "none", "valid" or "invalid: <why>": a bad Default does not stop the count.
std::string default_status(const SpaceSpec& spec, const Space& space) {
  if (!spec.default_problem.empty()) return "invalid: " + spec.default_problem;
  if (spec.default_config.empty()) return "none";
  try {
    resolve_default(spec, space);
    return "valid";
  } catch (const Error& e) {
    return std::string("invalid: ") + e.what();
  }
}

// --configs: every valid config, its id (the name of its files) and values, in enumeration order.
void print_configs(const SpaceOptions& o, const Space& space, Enumeration valid) {
  const ManifestConfigs configs(space.names(), std::move(valid));
  if (!o.json) {
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const ManifestConfig c = configs[i];
      std::cout << c.id << " " << assignments_text(space.names(), c.values) << "\n";
    }
    return;
  }
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const ManifestConfig c = configs[i];
    nlohmann::json values = nlohmann::json::object();
    for (std::size_t k = 0; k < c.values.size(); ++k) values[space.names()[k]] = c.values[k];
    list.push_back({{"id", c.id}, {"values", values}});
  }
  std::cout << nlohmann::json{{"file", o.file}, {"configs", list}}.dump(1) << "\n";
}

void print_counts(const SpaceOptions& o, const SpaceSpec& spec, const std::string& kind, const Space& space,
                  const Enumeration& valid, const std::string& status, double seconds) {
  if (o.json) {
    nlohmann::json out = {{"file", o.file},
                          {"kind", kind},
                          {"name", spec.name},
                          {"parameters", space.names()},
                          {"constraints", spec.constraints},
                          {"product", space.product()},
                          {"valid", valid.size()},
                          {"rejected_by", valid.rejected_by},
                          {"default", status},
                          {"enumerate_seconds", seconds}};
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << (spec.name.empty() ? o.file : spec.name) << " (" << kind << " " << o.file << ")\n"
            << "  parameters   " << space.names().size() << "\n"
            << "  constraints  " << spec.constraints.size() << "\n"
            << "  product      " << with_thousands(space.product()) << "\n"
            << "  valid        " << with_thousands(valid.size()) << std::fixed << std::setprecision(1) << " ("
            << 100.0 * valid.size() / std::max<uint64_t>(space.product(), 1) << " %)\n";
  for (std::size_t c = 0; c < valid.rejected_by.size(); ++c)
    std::cout << "  constraint " << c + 1 << " removed " << with_thousands(valid.rejected_by[c]) << ": "
              << spec.constraints[c] << "\n";
  std::cout << "  default      " << status << "\n"
            << std::setprecision(3) << "  enumerated in " << seconds * 1e3 << " ms\n";
}

void run(const SpaceOptions& o) {
  const auto [spec, kind] = read_spec(o.file);
  Space space = [&] {
    try {
      return spec.space();
    } catch (const Error& e) {
      throw Error(o.file + ": " + e.what());
    }
  }();
  const auto start = std::chrono::steady_clock::now();
  // Counting keeps no configs: any space whose enumeration ends within --max-points is counted.
  Enumeration valid = o.configs ? space.enumerate(kMaxValidConfigs, o.max_points) : space.count(o.max_points);
  if (valid.gave_up) throw Error(o.file + ": " + gave_up_text(space, o.max_points) + "; raise --max-points to go on");
  if (valid.truncated) throw Error(o.file + ": " + too_many_valid_text(space.product()) + " to list");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::string status = default_status(spec, space);
  if (status.starts_with("invalid")) std::cerr << "ktune: warning: " << o.file << ": the Default is " << status << "\n";
  if (o.configs)
    print_configs(o, space, std::move(valid));
  else
    print_counts(o, spec, kind, space, valid, status, seconds);
}

}  // namespace

void add_space_command(CLI::App& app) {
  auto options = std::make_shared<SpaceOptions>();
  CLI::App* sub = app.add_subcommand("space",
                                     "Print the product size and the number of valid configs of a T1 spec or a "
                                     "ktune manifest");
  sub->add_option("file", options->file, "T1 spec (.json) or ktune manifest")->required()->check(CLI::ExistingFile);
  sub->add_flag("--json", options->json, "print the summary as JSON: {\"product\": P, \"valid\": V, ...}");
  sub->add_flag("--configs", options->configs,
                "print every valid config instead, one a line: its id (its files' name) and values; with --json "
                "{\"configs\": [{\"id\", \"values\"}, ...]}");
  sub->add_option("--max-points", options->max_points, "give up enumerating after visiting this many points")
      ->capture_default_str()
      ->check(positive_integer());
  sub->callback([options] { run(*options); });
}

}  // namespace ktune::cli
