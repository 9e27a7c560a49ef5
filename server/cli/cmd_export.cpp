// cli/cmd_export.cpp: `hone export RUN [-o FILE]` writes a stored optimizer run as JSON lines of
// trajectories (one line per candidate: lineage, chat messages with reasoning, source, verdict,
// reward), the format RL and fine-tuning work reads.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "engine/engine.h"

namespace hone::cli {
namespace {

struct ExportFlags {
  std::int64_t run = 0;
  std::string output;
  std::string workspace;
};

int run_export(const ExportFlags& f) {
  EngineOptions options;
  if (!f.workspace.empty()) options.workspace = f.workspace;
  std::vector<nlohmann::json> lines;
  try {
    lines = Engine(options).export_run(f.run);
  } catch (const EngineError& e) {
    std::cerr << "hone export: " << e.what() << "\n";
    return 2;
  }
  std::ofstream file;
  if (!f.output.empty()) {
    file.open(f.output, std::ios::binary | std::ios::trunc);
    if (!file) {
      std::cerr << "hone export: cannot write " << f.output << "\n";
      return 2;
    }
  }
  std::ostream& out = f.output.empty() ? std::cout : file;
  for (const auto& l : lines) out << l.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  out.flush();
  if (!out) {
    std::cerr << "hone export: writing failed" << (f.output.empty() ? "" : ": " + f.output) << "\n";
    return 2;
  }
  if (!f.output.empty()) std::cerr << "wrote " << lines.size() << " trajectories to " << f.output << "\n";
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, CommandRegistry& registry) {
  auto f = std::make_shared<ExportFlags>();
  auto* cmd = app.add_subcommand("export", "Write an optimizer run as JSON lines of trajectories");
  cmd->add_option("run", f->run, "The run's id (`hone runs` lists them)")->required()->check(CLI::PositiveNumber);
  cmd->add_option("-o,--output", f->output, "Write to this file instead of stdout");
  cmd->add_option("--workspace", f->workspace, "The workspace folder (default: the current folder)");
  cmd->callback([f, &registry] { registry.set_exit_code(run_export(*f)); });
}

}  // namespace hone::cli
