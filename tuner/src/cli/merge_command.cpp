// `ktune merge --into DIR INPUT... [--json]`: combines one kernel's DBs tuned on other
// machines or GPUs into its DB directory (see ktune/merge.hpp); one line per file written.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "ktune/error.hpp"
#include "ktune/merge.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {
namespace {

struct MergeOptions {
  std::string into;
  std::vector<std::string> inputs;
  bool json = false;
};

void run(const MergeOptions& o) {
  const std::vector<std::filesystem::path> inputs(o.inputs.begin(), o.inputs.end());
  const MergeReport report = merge_dbs(o.into, inputs);
  for (const std::string& w : report.warnings) std::cerr << "ktune merge: warning: " << terminal_text(w, 400) << "\n";
  if (o.json) {
    // Names read from the inputs need not be UTF-8; dump() would throw on them.
    std::cout << report.to_json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::cout << report.text();
}

}  // namespace

void add_merge_command(CLI::App& app) {
  auto o = std::make_shared<MergeOptions>();
  CLI::App* sub =
      app.add_subcommand("merge", "Merge one kernel's tuning DBs from other machines or GPUs into its DB directory");
  sub->add_option("--into", o->into, "the kernel's DB directory (made if missing)")->required();
  sub->add_option("inputs", o->inputs, "DB files, or directories of them (their *.json)")->required();
  sub->add_flag("--json", o->json, "print the summary as JSON");
  // Its errors name the subcommand, as a merge is often scripted across many DBs.
  sub->callback([o] {
    try {
      run(*o);
    } catch (const Error& e) {
      std::cerr << "ktune merge: " << terminal_text(e.what(), 2000) << "\n";
      throw CLI::RuntimeError(1);
    }
  });
}

}  // namespace ktune::cli
