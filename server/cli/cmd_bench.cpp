// cli/cmd_bench.cpp: `hone bench TASKS... [--kernels DIR] [--device] [--json] [--out F] [--plot F]
// [--format hone|kernelbench]` checks the kernels of each task over a task set in the KernelBench
// format (task `19_ReLU.py`; hone-form kernel `19_ReLU.cu` or `.cpp` in --kernels or beside the
// task; KernelBench answers in --kernels as KernelBench's runs lay them out, or `19_ReLU.py`) with
// one engine, so the worker starts once, and reports each verdict, the share correct, fast_p
// against eager and torch.compile and geometric-mean speedups; --out keeps every full verdict as
// JSON lines (or, with --format kernelbench, KernelBench's eval results), --plot draws fast_p.
// Exit code 0 when every kernel is correct, 1 otherwise, 2 for usage or environment errors.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/bench_summary.h"
#include "cli/commands.h"
#include "cli/engine_flags.h"
#include "cli/kernelbench_runs.h"
#include "engine/engine.h"

namespace hone::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct BenchOptions {
  std::vector<std::string> tasks;
  std::string kernels;
  std::string out;
  std::string plot;
  std::string format = "hone";
  EngineFlags flags;
  bool json = false;
};

// The task files named: files as given, folders expanded to their *.py files in name order.
// Throws EngineError(Usage) for a path that does not exist or a folder with no task.
std::vector<fs::path> expand_tasks(const std::vector<std::string>& args) {
  std::vector<fs::path> tasks;
  for (const auto& a : args) {
    fs::path p(a);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> found;
      for (const auto& e : fs::directory_iterator(p, ec))
        if (e.is_regular_file() && e.path().extension() == ".py" && e.path().filename() != "__init__.py")
          found.push_back(e.path());
      if (found.empty()) throw EngineError(EngineError::Kind::Usage, "no task (*.py) in folder " + a);
      std::sort(found.begin(), found.end());
      tasks.insert(tasks.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(p, ec)) {
      tasks.push_back(p);
    } else {
      throw EngineError(EngineError::Kind::Usage, "no such task file or folder: " + a);
    }
  }
  return tasks;
}

// The kernel for a task: <stem>.cu or <stem>.cpp in the kernels folder (default: beside the
// task), chosen by the device; nullopt when there is none.
std::optional<fs::path> kernel_for(Engine& engine, const fs::path& task, const std::string& kernels_dir,
                                   DeviceKind device) {
  fs::path dir = kernels_dir.empty() ? task.parent_path() : fs::path(kernels_dir);
  fs::path cu = dir / (task.stem().string() + ".cu"), cpp = dir / (task.stem().string() + ".cpp");
  bool has_cu = fs::is_regular_file(cu), has_cpp = fs::is_regular_file(cpp);
  if (device == DeviceKind::Cuda) return has_cu ? std::optional(cu) : std::nullopt;
  if (device == DeviceKind::Cpu) return has_cpp ? std::optional(cpp) : std::nullopt;
  if (has_cu && has_cpp) {
    KernelSource k;
    k.path = cu;
    try {
      return engine.resolve_device(k, DeviceKind::Auto).is_cuda() ? cu : cpp;
    } catch (const EngineError&) {
      return cpp;
    }
  }
  if (has_cu) return cu;
  if (has_cpp) return cpp;
  return std::nullopt;
}

BenchRow row_from(const fs::path& task, const fs::path& kernel, const protocol::Verdict& v) {
  BenchRow r;
  r.task = task.string();
  r.kernel = kernel.string();
  r.status = std::string(protocol::to_string(v.status));
  r.reason = v.reason.value_or("");
  if (v.timing) r.p50_us = v.timing->p50_us;
  if (v.speedup) {
    r.speedup_eager = v.speedup->eager;
    r.speedup_compile = v.speedup->compile;
  }
  for (const auto& f : v.flags) r.flags.push_back(f.id);
  return r;
}

std::string row_progress(std::size_t i, std::size_t n, const BenchRow& r) {
  std::string s = "[" + std::to_string(i) + "/" + std::to_string(n) + "] " + fs::path(r.task).filename().string() +
                  ": " + r.status;
  if (r.p50_us) s += " · " + std::to_string(static_cast<long long>(*r.p50_us + 0.5)) + " µs";
  if (r.speedup_eager) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " · %.2f× eager", *r.speedup_eager);
    s += buf;
  }
  return s;
}

int run_bench(const BenchOptions& o) {
  std::vector<fs::path> tasks;
  std::unique_ptr<Engine> engine;
  std::ofstream verdicts;
  try {
    tasks = expand_tasks(o.tasks);
    if (!o.kernels.empty() && !fs::is_directory(o.kernels))
      throw EngineError(EngineError::Kind::Usage, "--kernels: no such folder: " + o.kernels);
    if (o.format == "kernelbench" && o.out.empty())
      throw EngineError(EngineError::Kind::Usage, "--format kernelbench writes KernelBench's eval results to --out FILE");
    if (!o.out.empty()) {
      verdicts.open(o.out, std::ios::trunc);
      if (!verdicts) throw EngineError(EngineError::Kind::Usage, "--out: cannot write " + o.out);
    }
    engine = std::make_unique<Engine>(engine_options(o.flags));
  } catch (const EngineError& e) {
    return report_error(e, o.json, "tasks", o.tasks.empty() ? "" : o.tasks.front());
  }
  DeviceKind device = *parse_device_kind(o.flags.device);
  const bool tty = ::isatty(STDERR_FILENO);
  ProgressLine line(tty);
  std::vector<BenchRow> rows;
  json kernelbench = json::object();
  std::set<int> levels;
  auto add_entry = [&](const fs::path& task, const fs::path& kernel, json entry) {
    auto key = kernelbench_key(kernel).value_or(task_key(task).value_or(KernelBenchKey{}));
    if (auto t = task_key(task); t && !key.problem) key = *t;
    levels.insert(key.level);
    json& slot = kernelbench["level" + std::to_string(key.level)][std::to_string(key.problem)];
    if (!slot.is_array()) slot = json::array();
    slot.push_back(std::move(entry));
  };
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const fs::path& task = tasks[i];
    std::vector<fs::path> kernels;
    if (std::optional<fs::path> kernel = kernel_for(*engine, task, o.kernels, device)) kernels.push_back(*kernel);
    if (!o.kernels.empty())
      for (auto& a : answers_for(task, o.kernels)) kernels.push_back(std::move(a));
    if (kernels.empty()) {
      BenchRow row;
      row.task = task.string();
      row.status = "missing";
      row.reason = "no kernel " + task.stem().string() + (device == DeviceKind::Cpu ? ".cpp" : device == DeviceKind::Cuda ? ".cu" : ".cu or .cpp") +
                   " or KernelBench answer in " + (o.kernels.empty() ? task.parent_path().string() : o.kernels);
      add_entry(task, {}, kernelbench_error_entry(row.status, row.reason, 0));
      if (!o.json) std::cerr << row_progress(i + 1, tasks.size(), row) << "\n";
      rows.push_back(std::move(row));
      continue;
    }
    for (const fs::path& kernel : kernels) {
      BenchRow row;
      row.task = task.string();
      const int sample = kernelbench_key(kernel).value_or(KernelBenchKey{}).sample;
      CheckRequest req;
      req.kernel.path = kernel;
      req.task = task;
      req.device = device;
      req.baselines = o.flags.baselines != "none";
      req.compile_baseline = o.flags.baselines == "all";
      CallContext ctx;
      std::string prefix = "[" + std::to_string(i + 1) + "/" + std::to_string(tasks.size()) + "] " +
                           kernel.filename().string() + " ";
      ctx.progress = [&line, &prefix](const Progress& p) { line.show(prefix + p.stage + ": " + p.message); };
      try {
        protocol::Verdict v = engine->check(req, ctx);
        row = row_from(task, kernel, v);
        add_entry(task, kernel, kernelbench_entry(v, sample));
        if (verdicts.is_open() && o.format != "kernelbench") verdicts << json(v).dump() << std::endl;
      } catch (const EngineError& e) {
        if (e.kind() == EngineError::Kind::Cancelled) return report_error(e, o.json, "task", task.string());
        if (e.kind() == EngineError::Kind::Environment || e.kind() == EngineError::Kind::NoGpu) {  // the next task would fail the same way
          line.clear();
          return report_error(e, o.json, "task", task.string());
        }
        row.kernel = kernel.string();
        row.status = "error";
        row.reason = e.what();
        add_entry(task, kernel, kernelbench_error_entry(row.status, row.reason, sample));
      }
      line.clear();
      if (!o.json) std::cerr << row_progress(i + 1, tasks.size(), row) << "\n";
      rows.push_back(std::move(row));
    }
  }
  if (o.format == "kernelbench" && verdicts.is_open()) {
    // KernelBench's eval results: {"<problem id>": [entries]} for one level; per level when several.
    json out = levels.size() == 1 ? kernelbench.begin().value() : kernelbench;
    verdicts << out.dump(2) << std::endl;
  }
  if (!o.plot.empty()) {
    std::ofstream svg(o.plot, std::ios::trunc);
    svg << bench_svg(rows, "fast_p over " + std::to_string(rows.size()) + " task(s)");
    if (!svg) std::cerr << "hone: warning: could not write the plot to " << o.plot << "\n";
  }
  if (o.json) {
    json j = bench_json(rows);
    if (o.format == "kernelbench") j["kernelbench"] = kernelbench;
    std::cout << j.dump() << std::endl;
  }
  if (!o.json) std::cout << bench_text(rows) << std::flush;
  bool all_correct = std::all_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.status == "correct"; });
  return all_correct ? 0 : 1;
}

}  // namespace

void add_bench_command(CLI::App& app, CommandRegistry& registry) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand("bench", "Check one kernel per task over a task set: correctness, speedups, fast_p");
  cmd->add_option("tasks", o->tasks, "Task files or folders of them (KernelBench format)")->required();
  cmd->add_option("--kernels", o->kernels,
                  "Folder with a kernel per task, named as the task (default: beside each task), and/or KernelBench "
                  "answers (level_L_problem_P_sample_S_kernel.py, level_L/problem_P/sample_S/*.py, or <task>.py)");
  add_engine_flags(cmd, o->flags);
  add_check_flags(cmd, o->flags);
  cmd->add_option("--out", o->out, "Write every verdict as a JSON line to this file (--format kernelbench: KernelBench's eval results)");
  cmd->add_option("--format", o->format, "hone (verdict JSON lines) or kernelbench (KernelBench's eval-result fields, runtimes in ms)")
      ->check(CLI::IsMember({"hone", "kernelbench"}));
  cmd->add_option("--plot", o->plot, "Write an SVG plot of fast_p against the speedup threshold");
  cmd->add_flag("--json", o->json, "Print one JSON object: per-task rows and the summary");
  cmd->callback([o, &registry] { registry.set_exit_code(run_bench(*o)); });
}

}  // namespace hone::cli
