// The `ktune` tool. Exit codes: 0 success, 1 bad input or failed work (message on
// stderr naming the file, field and fix), 2 bad command line.
#include <csignal>
#include <iostream>

#include "cli/commands.hpp"
#include "ktune/error.hpp"
#include "ktune/text.hpp"

int main(int argc, char** argv) {
  // Over a file size limit (ulimit -f) write() then fails with EFBIG, which every write
  // reports and cleans up after, instead of SIGXFSZ killing ktune with its temporaries left.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"ktune: build-time autotuning of CUDA kernels"};
  app.set_version_flag("--version", "ktune " KTUNE_VERSION);
  app.require_subcommand(1);
  ktune::cli::add_space_command(app);
  ktune::cli::add_plan_command(app);
  ktune::cli::add_compile_command(app);
  ktune::cli::add_cubins_command(app);
  ktune::cli::add_gpu_command(app);
  ktune::cli::add_merge_command(app);
  ktune::cli::add_bake_command(app);
  ktune::cli::add_simulate_command(app);
  ktune::cli::add_export_command(app);
  ktune::cli::add_import_command(app);
  ktune::cli::add_show_command(app);
  ktune::cli::add_report_command(app);
  ktune::cli::add_tune_command(app);
  ktune::cli::add_slurm_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {  // a subcommand's own exit status
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    // Messages quote files and arguments: one terminal-safe line of bounded length.
    std::cerr << "ktune: error: " << ktune::terminal_text(e.what(), 2000) << "\n";
    return 1;
  }
  return 0;
}
