// cli/commands.cpp: the list of hone's subcommands.
#include "cli/commands.h"

namespace hone::cli {

void register_commands(CLI::App& app, CommandRegistry& registry) {
  add_build_command(app, registry);
  add_check_command(app, registry);
  add_task_command(app, registry);
  add_optimize_command(app, registry);
  add_runs_command(app, registry);
  add_export_command(app, registry);
  add_profile_command(app, registry);
  add_specs_command(app, registry);
  add_bench_command(app, registry);
  add_run_batch_command(app, registry);
}

}  // namespace hone::cli
