// cli/cmd_run_batch.cpp: `hone run-batch IN OUT`, what a Slurm job of the Slurm executor runs on
// its node: the checks of one batch file, each verdict appended to OUT as a JSON line as soon as
// it is known (engine's run_check_batch). Not meant to be typed; listed for completeness.
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "engine/engine.h"

namespace hone::cli {

void add_run_batch_command(CLI::App& app, CommandRegistry& registry) {
  struct State {
    std::string in, out;
  };
  auto state = std::make_shared<State>();
  CLI::App* cmd = app.add_subcommand("run-batch", "Run a batch of checks written by the Slurm executor (what its jobs run)");
  cmd->add_option("in", state->in, "The batch file (engine options and check requests)")->required();
  cmd->add_option("out", state->out, "Append one JSON line per finished check here")->required();
  cmd->callback([state, &registry] {
    try {
      registry.set_exit_code(run_check_batch(state->in, state->out));
    } catch (const EngineError& e) {
      std::cerr << "hone run-batch: " << e.what() << "\n" << e.detail() << "\n";
      registry.set_exit_code(2);
    } catch (const std::exception& e) {
      std::cerr << "hone run-batch: " << e.what() << "\n";
      registry.set_exit_code(2);
    }
  });
}

}  // namespace hone::cli
