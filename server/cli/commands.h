// cli/commands.h: how subcommands join the CLI. Each cmd_*.cpp defines one add_*_command that
// adds a CLI11 subcommand whose callback runs the command and stores its exit code
// (0 success, 1 a negative result such as a compile error or a failed check, 2 usage or
// environment error).
#pragma once

#include <CLI/CLI.hpp>

namespace hone::cli {

class CommandRegistry {
 public:
  void set_exit_code(int code) { exit_code_ = code; }
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_ = 0;
};

void add_build_command(CLI::App& app, CommandRegistry& registry);
void add_check_command(CLI::App& app, CommandRegistry& registry);
void add_task_command(CLI::App& app, CommandRegistry& registry);
void add_optimize_command(CLI::App& app, CommandRegistry& registry);
void add_runs_command(CLI::App& app, CommandRegistry& registry);
void add_export_command(CLI::App& app, CommandRegistry& registry);
void add_profile_command(CLI::App& app, CommandRegistry& registry);
void add_specs_command(CLI::App& app, CommandRegistry& registry);
void add_bench_command(CLI::App& app, CommandRegistry& registry);
void add_run_batch_command(CLI::App& app, CommandRegistry& registry);

// Adds every subcommand (commands.cpp).
void register_commands(CLI::App& app, CommandRegistry& registry);

}  // namespace hone::cli
