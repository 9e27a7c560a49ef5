// cli/commands.cpp: the list of hone's subcommands.
#include "cli/commands.h"

namespace hone::cli {

void register_commands(CLI::App& app, CommandRegistry& registry) {
  add_build_command(app, registry);
}

}  // namespace hone::cli
