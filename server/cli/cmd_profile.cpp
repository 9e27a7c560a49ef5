// cli/cmd_profile.cpp: `hone profile KERNEL [--task T] [--json] [--metrics default|full]`: checks
// the kernel, then prints its kernel table, counters, roofline position (against its baseline)
// and ranked suggestions, and writes the SVG roofline plot; --json prints the verdict with its
// `profile` (protocol/schema/profile.schema.json).
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "protocol/verdict_text.h"
#include "engine/engine.h"

namespace hone::cli {
namespace {

using nlohmann::json;

struct ProfileFlags {
  std::string kernel;
  std::string task;
  std::string metrics = "default";
  std::string plot;
  std::string python;
  bool no_baseline = false;
  bool no_sandbox = false;
  bool json = false;
  double timeout_s = 0;
};

int fail(const EngineError& e, bool as_json) {
  if (as_json) {
    json j{{"error", e.what()}};
    if (!e.detail().empty()) j["detail"] = e.detail();
    std::cout << j.dump() << std::endl;
  }
  std::cerr << "hone: error: " << e.what() << "\n";
  if (!e.detail().empty()) std::cerr << e.detail() << (e.detail().back() == '\n' ? "" : "\n");
  return e.kind() == EngineError::Kind::Cancelled ? 1 : 2;
}

int run_profile(const ProfileFlags& f) {
  try {
    EngineOptions options;
    options.device = DeviceKind::Cuda;
    if (!f.python.empty()) options.python = f.python;
    options.sandbox = !f.no_sandbox;
    Engine engine(options);
    ProfileRequest request;
    request.kernel.path = f.kernel;
    if (!f.task.empty()) request.task = f.task;
    request.metrics = f.metrics;
    request.baseline = !f.no_baseline;
    if (!f.plot.empty()) request.plot = f.plot;
    if (f.timeout_s > 0) request.deadline = std::chrono::seconds(static_cast<long>(f.timeout_s + 0.999));
    CallContext ctx;
    bool tty = !f.json && ::isatty(STDERR_FILENO);
    ctx.progress = [tty](const Progress& p) {
      if (tty) std::cerr << "\r\033[K" << p.stage << ": " << p.message << std::flush;
    };
    ProfileResult r = engine.profile(request, ctx);
    if (tty) std::cerr << "\r\033[K" << std::flush;
    if (f.json) {
      std::cout << json(r.verdict).dump() << std::endl;
    } else {
      std::cout << verdict_headline(r.verdict) << "\n" << verdict_details(r.verdict);
      if (r.verdict.profile) std::cout << protocol::profile_text(*r.verdict.profile);
      if (!r.skipped.empty()) std::cout << r.skipped << "\n";
      std::cout << std::flush;
    }
    return r.verdict.status == protocol::Status::Correct && r.verdict.profile ? 0 : 1;
  } catch (const EngineError& e) {
    return fail(e, f.json);
  }
}

}  // namespace

void add_profile_command(CLI::App& app, CommandRegistry& registry) {
  auto f = std::make_shared<ProfileFlags>();
  CLI::App* cmd = app.add_subcommand("profile", "Check a CUDA kernel, then profile it: kernels, counters, roofline, suggestions");
  cmd->add_option("kernel", f->kernel, "Kernel file (.cu)")->required();
  cmd->add_option("--task", f->task, "Reference task (KernelBench format); default: paired with the kernel");
  cmd->add_option("--metrics", f->metrics, "default (<= 2 replay passes on sm_90) or full (every counter hone knows)")
      ->check(CLI::IsMember({"default", "full"}));
  cmd->add_option("--plot", f->plot, "Where to write the SVG roofline plot (default: .hone/profiles/ in the workspace)");
  cmd->add_flag("--no-baseline", f->no_baseline, "Neither profile nor time the reference (no baseline point, no speedups)");
  cmd->add_option("--python", f->python, "Python interpreter that imports torch (default: $HONE_PYTHON, then search)");
  cmd->add_option("--timeout", f->timeout_s, "Seconds the profiling request may take (default 600)")->check(CLI::PositiveNumber);
  cmd->add_flag("--no-sandbox", f->no_sandbox, "Run the kernel unconfined (recorded in the verdict)");
  cmd->add_flag("--json", f->json, "Print the verdict with its profile as one JSON object");
  cmd->callback([f, &registry] { registry.set_exit_code(run_profile(*f)); });
}

}  // namespace hone::cli
