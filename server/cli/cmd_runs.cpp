// cli/cmd_runs.cpp: `hone runs [--limit N] [--json]` lists the optimizer runs stored in the
// workspace (.hone/hone.db), most recent first: status, proposer, kernel, candidates, best result.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/cmd_optimize_output.h"
#include "cli/commands.h"
#include "engine/engine.h"
#include "protocol/verdict_text.h"

namespace hone::cli {
namespace {

using protocol::format_number;
using protocol::short_reason;

struct RunsFlags {
  int limit = 20;
  bool json = false;
  std::string workspace;
};

std::string best_column(const protocol::RunListing& r) {
  const bool won = r.winner.has_value();
  std::string text = won ? vs_original_text(r.winner_vs_kernel, r.winner_vs_kernel_range)
                         : vs_original_text(r.best_vs_kernel, r.best_vs_kernel_range);
  const std::string eager = won ? eager_text(r.winner_speedup_eager, r.winner_speedup_eager_range)
                                : eager_text(r.best_speedup_eager, r.best_speedup_eager_range);
  if (!eager.empty()) text += (text.empty() ? "" : ", ") + eager;
  if (won) return "#" + std::to_string(*r.winner) + " re-verified" + (text.empty() ? "" : ": " + text);
  return text.empty() ? "none" : text + " (not re-verified)";
}

int run_runs(const RunsFlags& f) {
  EngineOptions options;
  if (!f.workspace.empty()) options.workspace = f.workspace;
  std::vector<protocol::RunListing> runs;
  std::filesystem::path store;
  try {
    Engine engine(options);
    store = engine.store_path();
    runs = engine.runs(f.limit);
  } catch (const EngineError& e) {
    std::cerr << "hone runs: " << e.what() << "\n";
    return 2;
  }
  if (runs.empty() && !std::filesystem::exists(store)) {
    if (f.json) std::cout << "[]" << std::endl;
    else std::cout << "no runs yet in " << store.parent_path().parent_path().string() << " (" << store.string() << " does not exist)\n";
    return 0;
  }
  if (f.json) {
    std::cout << nlohmann::json(runs).dump(2) << std::endl;
    return 0;
  }
  std::printf("%4s  %-19s  %-11s  %-6s  %-10s  %-8s  %s\n", "ID", "STARTED", "STATUS", "BY", "CANDIDATES", "TIME",
              "KERNEL / BEST");
  for (const auto& r : runs) {
    std::string started = r.created_at.substr(0, 19);
    if (started.size() > 10) started[10] = ' ';
    std::printf("%4lld  %-19s  %-11s  %-6s  %-10d  %-8s  %s\n", static_cast<long long>(r.id), started.c_str(),
                r.status.c_str(), r.proposer.c_str(), r.candidates,
                (format_number(r.elapsed_s) + "s").c_str(), r.kernel_path.c_str());
    std::printf("%4s  %s\n", "", ("best: " + best_column(r) + (r.error.empty() ? "" : " · error: " + short_reason(r.error))).c_str());
  }
  return 0;
}

}  // namespace

void add_runs_command(CLI::App& app, CommandRegistry& registry) {
  auto f = std::make_shared<RunsFlags>();
  auto* cmd = app.add_subcommand("runs", "List the optimizer runs stored in this workspace (.hone/hone.db)");
  cmd->add_option("--limit", f->limit, "Most recent runs to list (default 20; 0: all)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--workspace", f->workspace, "The workspace folder (default: the current folder)");
  cmd->add_flag("--json", f->json, "Print a JSON array of runs");
  cmd->callback([f, &registry] { registry.set_exit_code(run_runs(*f)); });
}

}  // namespace hone::cli
