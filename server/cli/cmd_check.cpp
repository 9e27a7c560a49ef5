// cli/cmd_check.cpp: `hone check KERNEL... [--task T] [--device cpu|cuda] [--json]` builds each
// kernel, verifies it against its reference and prints a verdict (one JSON object per kernel with
// --json); and `hone task TASK [--json]` prints the forward signature a kernel must have.
// Several kernels in one call share one engine, so its workers start once.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "engine/check_summary.h"
#include "engine/engine.h"

namespace hone::cli {
namespace {

using nlohmann::json;

struct EngineFlags {
  std::string device = "auto";
  std::string python;
  bool no_sandbox = false;
  int seeds = 0;
  double timeout_s = 0;
  std::string arch;
  std::string baselines = "all";
};

void add_engine_flags(CLI::App* cmd, EngineFlags& f) {
  cmd->add_option("--device", f.device, "Where to run: auto (GPU for .cu, CPU for .cpp), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--python", f.python, "Python interpreter that imports torch (default: $HONE_PYTHON, then search)");
}

// Builds the engine's options; a bad value is a usage error (exit 2).
EngineOptions engine_options(const EngineFlags& f) {
  EngineOptions o;
  o.device = *parse_device_kind(f.device);
  if (!f.python.empty()) o.python = f.python;
  o.sandbox = !f.no_sandbox;
  if (f.seeds > 0) o.seeds = f.seeds;
  if (f.timeout_s > 0) o.check_timeout = std::chrono::seconds(static_cast<long>(f.timeout_s + 0.999));
  if (!f.arch.empty()) o.arch = f.arch;
  return o;
}

// A single status line on a terminal, rewritten as progress arrives; nothing when not a TTY.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  ~ProgressLine() { clear(); }
  void show(const Progress& p) {
    if (!enabled_) return;
    std::cerr << "\r\033[K" << p.stage << ": " << p.message << std::flush;
    shown_ = true;
  }
  void clear() {
    if (shown_) std::cerr << "\r\033[K" << std::flush;
    shown_ = false;
  }

 private:
  bool enabled_;
  bool shown_ = false;
};

// Prints the error (and, with --json, one object naming the kernel or task it is about).
int report_error(const EngineError& e, bool as_json, const char* about, const std::string& subject) {
  if (as_json) {
    json j{{"error", e.what()}, {about, subject}};
    if (!e.detail().empty()) j["detail"] = e.detail();
    std::cout << j.dump() << std::endl;
  }
  std::cerr << "hone: error: " << e.what() << "\n";
  if (!e.detail().empty()) std::cerr << e.detail() << (e.detail().back() == '\n' ? "" : "\n");
  return e.kind() == EngineError::Kind::Cancelled ? 1 : 2;
}

int run_check(const std::vector<std::string>& kernels, const std::string& task, const EngineFlags& flags, bool as_json) {
  std::unique_ptr<Engine> engine;
  try {
    engine = std::make_unique<Engine>(engine_options(flags));
  } catch (const EngineError& e) {
    return report_error(e, as_json, "kernel", kernels.empty() ? "" : kernels.front());
  }
  int worst = 0;
  ProgressLine line(!as_json && ::isatty(STDERR_FILENO));
  for (const auto& k : kernels) {
    CheckRequest req;
    req.kernel.path = k;
    if (!task.empty()) req.task = task;
    req.baselines = flags.baselines != "none";
    req.compile_baseline = flags.baselines == "all";
    CallContext ctx;
    ctx.progress = [&line](const Progress& p) { line.show(p); };
    try {
      protocol::Verdict v = engine->check(req, ctx);
      line.clear();
      if (as_json) {
        std::cout << json(v).dump() << std::endl;
      } else {
        if (kernels.size() > 1) std::cout << k << "\n";
        std::cout << verdict_headline(v) << "\n" << verdict_details(v) << std::flush;
      }
      worst = std::max(worst, v.status == protocol::Status::Correct ? 0 : 1);
    } catch (const EngineError& e) {
      line.clear();
      worst = std::max(worst, report_error(e, as_json, "kernel", k));
    }
  }
  return worst;
}

std::string spec_line(const protocol::TensorSpec& s) {
  std::string text = "  " + s.name + ": " + (s.kind == "tensor" ? s.dtype.value_or("?") : s.kind);
  if (s.kind == "tensor") {
    text += "[";
    for (std::size_t i = 0; i < s.shape.size(); ++i) text += (i ? ", " : "") + std::to_string(s.shape[i]);
    text += "]";
  }
  return text + "\n";
}

int describe_task(Engine& engine, const std::string& task, DeviceKind device, const std::vector<std::string>& time_modes,
                  bool as_json) {
  try {
    TaskInfo info = engine.task_info(task, device);
    std::vector<std::pair<std::string, Engine::ReferenceTiming>> timings;
    for (const auto& mode : time_modes) timings.emplace_back(mode, engine.time_reference(task, device, mode));
    if (as_json) {
      json j{{"task", info.path.string()}, {"hash", info.hash}, {"name", info.name}, {"signature", info.signature},
             {"input_bytes", info.input_bytes}, {"output_bytes", info.output_bytes},
             {"weak", info.weak}, {"max_abs_diff_across_seeds", info.max_abs_diff_across_seeds}};
      for (const auto& [mode, t] : timings) {
        j["reference"][mode] = t.timing ? json(*t.timing) : json(nullptr);
        if (!t.unavailable.empty()) j["reference_unavailable"][mode] = t.unavailable;
      }
      std::cout << j.dump() << std::endl;
      return 0;
    }
    std::cout << info.name << " (" << info.path.string() << ")\n";
    std::cout << "inputs:\n";
    for (const auto& s : info.signature.inputs) std::cout << spec_line(s);
    if (!info.signature.params.empty()) std::cout << "parameters (state_dict order):\n";
    for (const auto& s : info.signature.params) std::cout << spec_line(s);
    std::cout << "outputs:\n";
    for (const auto& s : info.signature.outputs) std::cout << spec_line(s);
    std::cout << "forward:\n" << signature_text(info.signature);
    if (info.weak) std::cout << "⚑ weak task: the reference output barely depends on its inputs\n";
    for (const auto& [mode, t] : timings) {
      if (t.timing)
        std::cout << "reference " << mode << ": " << timing_text(*t.timing) << "\n";
      else
        std::cout << "reference " << mode << ": unavailable (" << t.unavailable << ")\n";
    }
    return 0;
  } catch (const EngineError& e) {
    return report_error(e, as_json, "task", task);
  }
}

int run_task(const std::vector<std::string>& tasks, const EngineFlags& flags, const std::vector<std::string>& time_modes,
             bool as_json) {
  std::unique_ptr<Engine> engine;
  try {
    engine = std::make_unique<Engine>(engine_options(flags));
  } catch (const EngineError& e) {
    return report_error(e, as_json, "task", tasks.empty() ? "" : tasks.front());
  }
  int worst = 0;
  for (const auto& t : tasks) {
    if (tasks.size() > 1 && !as_json) std::cout << (&t == &tasks.front() ? "" : "\n");
    worst = std::max(worst, describe_task(*engine, t, *parse_device_kind(flags.device), time_modes, as_json));
  }
  return worst;
}

}  // namespace

void add_check_command(CLI::App& app, CommandRegistry& registry) {
  struct State {
    std::vector<std::string> kernels;
    std::string task;
    EngineFlags flags;
    bool json = false;
  };
  auto state = std::make_shared<State>();
  CLI::App* cmd = app.add_subcommand("check", "Build kernels, verify them against their reference and time them");
  cmd->add_option("kernel", state->kernels, "Kernel files (.cu for the GPU, .cpp for the CPU)")->required();
  cmd->add_option("--task", state->task, "Reference task (KernelBench format); default: paired with the kernel");
  add_engine_flags(cmd, state->flags);
  cmd->add_option("--seeds", state->flags.seeds, "Correctness trials with fresh inputs (at least 1; default 3)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--timeout", state->flags.timeout_s, "Seconds one check may take before the worker is killed")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--arch", state->flags.arch, "GPU architecture to build for (sm_90); default: the local GPU's");
  cmd->add_option("--baselines", state->flags.baselines,
                  "Reference timings for the speedups: all (eager and torch.compile), eager, or none")
      ->check(CLI::IsMember({"all", "eager", "none"}));
  cmd->add_flag("--no-sandbox", state->flags.no_sandbox, "Run candidates unconfined (recorded in the verdict)");
  cmd->add_flag("--json", state->json, "One JSON verdict per kernel (protocol/schema/verdict.schema.json)");
  cmd->callback([state, &registry] {
    registry.set_exit_code(run_check(state->kernels, state->task, state->flags, state->json));
  });
}

void add_task_command(CLI::App& app, CommandRegistry& registry) {
  struct State {
    std::vector<std::string> tasks;
    EngineFlags flags;
    std::vector<std::string> time_modes;
    bool json = false;
  };
  auto state = std::make_shared<State>();
  CLI::App* cmd = app.add_subcommand("task", "Print the forward signature a kernel for each task must have");
  cmd->alias("signature");
  cmd->add_option("task", state->tasks, "Reference tasks (KernelBench format)")->required();
  add_engine_flags(cmd, state->flags);
  cmd->add_option("--time", state->time_modes, "Also time the reference: eager and/or compile (torch.compile)")
      ->check(CLI::IsMember({"eager", "compile"}));
  cmd->add_flag("--json", state->json, "Print one JSON object");
  cmd->callback([state, &registry] {
    registry.set_exit_code(run_task(state->tasks, state->flags, state->time_modes, state->json));
  });
}

}  // namespace hone::cli
