// The `ktune` tool. Exit codes: 0 success, 1 bad input or failed work (message on
// stderr naming the file, field and fix), 2 bad command line.
#include <iostream>

#include "cli/commands.hpp"
#include "ktune/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ktune: build-time autotuning of CUDA kernels"};
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {  // a subcommand's own exit status
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const ktune::Error& e) {
    std::cerr << "ktune: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "ktune: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
