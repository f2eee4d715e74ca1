// `ktune compile --record R --log L --cubin C [--config VALUES] -- COMMAND...`: the wrapper around each
// cubin's nvcc command, so that a config that does not compile is recorded, not fatal.
#include "cli/commands.hpp"
#include "ktune/compile_record.hpp"

namespace ktune::cli {

void add_compile_command(CLI::App& app) {
  auto job = std::make_shared<CompileJob>();
  CLI::App* sub =
      app.add_subcommand("compile", "Run one config's compiler command, keep its log and write its compile record");
  sub->add_option("--record", job->record, "compile record to write (JSON)")->required();
  sub->add_option("--log", job->log, "file for the compiler's output")->required();
  sub->add_option("--cubin", job->cubin, "the cubin the command writes")->required();
  sub->add_option("--depfile", job->depfile,
                  "the command's dependency file; written empty if a failed compile left none");
  sub->add_option("--source", job->source, "the file compiled (named by a placeholder depfile)");
  sub->add_option("--config", job->config, "the config by its values, for the log, the record and messages");
  sub->add_option("command", job->command, "compiler command line, after --")->required();
  sub->callback([job] {
    int code = run_compile_job(*job).exit_code;
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace ktune::cli
