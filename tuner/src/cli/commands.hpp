#pragma once
// Each subcommand of the `ktune` tool registers itself on the app; its callback throws
// ktune::Error for bad input, which main() prints and turns into exit code 1.
#include <CLI/CLI.hpp>

namespace ktune::cli {

void add_space_command(CLI::App& app);
void add_plan_command(CLI::App& app);
void add_compile_command(CLI::App& app);
void add_cubins_command(CLI::App& app);
void add_gpu_command(CLI::App& app);
void add_merge_command(CLI::App& app);
void add_bake_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_import_command(CLI::App& app);
void add_show_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_tune_command(CLI::App& app);
void add_slurm_command(CLI::App& app);

}  // namespace ktune::cli
