// cli/main.cpp: the `hone` command line. Each subcommand lives in its own cmd_*.cpp and is
// registered here; all of them drive the same engine as the language server.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.h"
#include "support/child_groups.h"

int main(int argc, char** argv) {
  hone::kill_children_on_fatal_signals();
  CLI::App app{"hone: check, profile and optimize CUDA kernels against their PyTorch reference"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("hone ") + HONE_VERSION);
  hone::cli::CommandRegistry registry;
  hone::cli::register_commands(app, registry);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints help/version with exit 0; usage errors exit 2 as documented.
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return registry.exit_code();
}
