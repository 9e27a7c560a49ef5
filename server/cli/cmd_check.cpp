// cli/cmd_check.cpp: `hone check KERNEL... [--task T] [--device cpu|cuda] [--json]` builds each
// kernel, verifies it against its reference and prints a verdict (one JSON object per kernel with
// --json); and `hone task TASK [--json]` prints the forward signature a kernel must have.
// Several kernels in one call share one engine, so its workers start once.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/engine_flags.h"
#include "cli/verify_on.h"
#include "protocol/verdict_text.h"
#include "engine/engine.h"

namespace hone::cli {
namespace {

using nlohmann::json;

// One kernel's verdict (or, with --verify-on all, one per GPU kind), printed; returns its exit code.
int print_verdicts(const std::string& kernel, const std::vector<protocol::Verdict>& verdicts, bool many, bool as_json) {
  int worst = 0;
  for (const auto& v : verdicts) {
    if (as_json) {
      std::cout << json(v).dump() << std::endl;
    } else {
      if (many) std::cout << kernel << "\n";
      std::cout << verdict_headline(v) << "\n" << verdict_details(v) << std::flush;
    }
    worst = std::max(worst, v.status == protocol::Status::Correct ? 0 : 1);
  }
  if (verdicts.size() > 1 && !as_json) std::cout << verify_on_text(verdicts) << std::flush;
  return worst;
}

int run_check(const std::vector<std::string>& kernels, const std::string& task, const EngineFlags& flags,
              const std::string& verify_on, bool as_json) {
  std::unique_ptr<Engine> engine;
  try {
    engine = std::make_unique<Engine>(engine_options(flags));
  } catch (const EngineError& e) {
    return report_error(e, as_json, "kernel", kernels.empty() ? "" : kernels.front());
  }
  int worst = 0;
  ProgressLine line(!as_json && ::isatty(STDERR_FILENO));
  std::mutex progress_mutex;
  CallContext ctx;
  ctx.progress = [&](const Progress& p) {
    std::lock_guard lock(progress_mutex);
    line.show(p);
  };
  std::vector<CheckRequest> requests;
  for (const auto& k : kernels) {
    CheckRequest req;
    req.kernel.path = k;
    if (!task.empty()) req.task = task;
    req.baselines = flags.baselines != "none";
    req.compile_baseline = flags.baselines == "all";
    requests.push_back(req);
  }
  if (verify_on == "all") {
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      try {
        std::vector<protocol::Verdict> verdicts = verify_on_every_kind(*engine, requests[i], ctx);
        line.clear();
        worst = std::max(worst, print_verdicts(kernels[i], verdicts, kernels.size() > 1, as_json));
      } catch (const EngineError& e) {
        line.clear();
        worst = std::max(worst, report_error(e, as_json, "kernel", kernels[i]));
      }
    }
    return worst;
  }
  // One judge: each verdict printed as it comes, as hone always did.
  int width = 1;
  if (kernels.size() > 1) {
    try {
      width = engine->pool_width(DeviceKind::Auto);
    } catch (const EngineError&) {
      width = 1;  // the first check reports the problem
    }
  }
  if (width <= 1 && engine->options().executor == Executor::Local) {
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      try {
        protocol::Verdict v = engine->check(requests[i], ctx);
        line.clear();
        worst = std::max(worst, print_verdicts(kernels[i], {v}, kernels.size() > 1, as_json));
      } catch (const EngineError& e) {
        line.clear();
        worst = std::max(worst, report_error(e, as_json, "kernel", kernels[i]));
      }
    }
    return worst;
  }
  // Several kernels spread over the pool's GPUs (or Slurm jobs); printed in order.
  Engine::ManyResult result;
  try {
    result = engine->check_many(requests, ctx);
  } catch (const EngineError& e) {
    line.clear();
    return report_error(e, as_json, "kernel", kernels.front());
  }
  line.clear();
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (result.errors[i]) {
      worst = std::max(worst, report_error(*result.errors[i], as_json, "kernel", kernels[i]));
      continue;
    }
    worst = std::max(worst, print_verdicts(kernels[i], {*result.verdicts[i]}, kernels.size() > 1, as_json));
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
    std::vector<std::pair<std::string, protocol::ReferenceTiming>> timings;
    for (const auto& mode : time_modes) timings.emplace_back(mode, engine.time_reference(task, device, mode));
    if (as_json) {
      json j{{"task", info.path.string()}, {"hash", info.hash}, {"name", info.name}, {"signature", info.signature},
             {"input_bytes", info.input_bytes}, {"output_bytes", info.output_bytes},
             {"weak", info.weak}, {"max_abs_diff_across_seeds", info.max_abs_diff_across_seeds}, {"init", info.init}};
      for (const auto& [mode, t] : timings) {
        j["reference"][mode] = t.timing ? json(*t.timing) : json(nullptr);
        if (!t.unavailable.empty()) j["reference_unavailable"][mode] = t.unavailable;
        if (!t.noisy.empty()) j["reference_noisy"][mode] = t.noisy;
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
    if (!info.init.empty()) std::cout << "init (get_init_inputs(); the scalars are constexpr in kernels):\n";
    for (const json& a : info.init) {
      std::cout << "  " << a.value("name", "?") << " = ";
      if (a.contains("value")) std::cout << (a["value"].is_string() ? a["value"].get<std::string>() : a["value"].dump());
      else std::cout << a.value("kind", "?") << (a.contains("shape") ? " " + a["shape"].dump() : std::string());
      if (a.contains("cpp")) std::cout << "  (" << a["cpp"].get<std::string>() << ")";
      std::cout << "\n";
    }
    if (info.weak) std::cout << "⚑ weak task: the reference output barely depends on its inputs\n";
    for (const auto& [mode, t] : timings) {
      if (t.timing) {
        std::cout << "reference " << mode << ": " << timing_text(*t.timing)
                  << (t.noisy.empty() ? "" : "\n  ⚑ " + t.noisy) << "\n";
        if (auto by_kernel = device_kernels_text(*t.timing); !by_kernel.empty())
          std::cout << "  device time by kernel: " << by_kernel << "\n";
      } else {
        std::cout << "reference " << mode << ": unavailable (" << t.unavailable << ")\n";
      }
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
    std::string verify_on;
    bool json = false;
  };
  auto state = std::make_shared<State>();
  CLI::App* cmd = app.add_subcommand("check", "Build kernels, verify them against their reference and time them");
  cmd->add_option("kernel", state->kernels, "Kernel files (.cu for the GPU, .cpp for the CPU)")->required();
  cmd->add_option("--task", state->task, "Reference task (KernelBench format); default: paired with the kernel");
  add_engine_flags(cmd, state->flags);
  add_check_flags(cmd, state->flags);
  add_scale_flags(cmd, state->flags);
  cmd->add_option("--verify-on", state->verify_on, "all: check on every GPU kind of the pool, a verdict per kind")
      ->check(CLI::IsMember({"all"}));
  cmd->add_flag("--json", state->json, "One JSON verdict per kernel (protocol/schema/verdict.schema.json)");
  cmd->callback([state, &registry] {
    registry.set_exit_code(run_check(state->kernels, state->task, state->flags, state->verify_on, state->json));
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
