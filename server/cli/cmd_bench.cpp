// cli/cmd_bench.cpp: `hone bench TASKS... [--kernels DIR] [--device] [--json] [--out F] [--plot F]
// [--format hone|kernelbench]` checks the kernels of each task over a task set in the KernelBench
// format (task `19_ReLU.py`; hone-form kernel `19_ReLU.cu` or `.cpp` in --kernels or beside the
// task; KernelBench answers in --kernels as KernelBench's runs lay them out, or `19_ReLU.py`) with
// one engine, so the worker starts once, and reports each verdict, the share correct, fast_p
// against eager and torch.compile and geometric-mean speedups; --out keeps every full verdict as
// JSON lines as each arrives (--resume continues from them; with --format kernelbench,
// KernelBench's eval results at the end), --plot draws fast_p. Checks are sharded over the pool's
// GPUs (--gpus) or Slurm jobs (--executor slurm).
// Exit code 0 when every kernel is correct, 1 otherwise, 2 for usage or environment errors.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/bench_summary.h"
#include "cli/cmd_optimize_output.h"
#include "cli/commands.h"
#include "cli/engine_flags.h"
#include "cli/kernelbench_runs.h"
#include "protocol/verdict_text.h"
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
  EngineFlags flags;
  bool json = false;
  bool resume = false;
  std::string format = "hone";
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
  if (v.timing) r.p50_us = protocol::basis_time(*v.timing).p50_us;  // the time the speedups divide
  if (v.speedup) {
    r.speedup_eager = v.speedup->eager;
    r.speedup_compile = v.speedup->compile;
    r.speedup_eager_range = v.speedup->eager_range;
    r.speedup_compile_range = v.speedup->compile_range;
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
  } else if (r.speedup_eager_range) {
    s += " · " + eager_text(std::nullopt, r.speedup_eager_range);
  }
  return s;
}

// The verdicts a previous run wrote to --out, by "task\nkernel" (the last line of each wins);
// lines that are not verdicts are skipped.
std::map<std::string, protocol::Verdict> journal(const std::string& path) {
  std::map<std::string, protocol::Verdict> found;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    json j = json::parse(line, nullptr, false);
    if (!j.is_object()) continue;
    try {
      protocol::Verdict v = j.get<protocol::Verdict>();
      if (v.executor && v.device.name == "Slurm") continue;  // no job finished it: check it again
      found[v.task.path + "\n" + v.kernel.path] = std::move(v);
    } catch (const std::exception&) {
      continue;  // a torn last line of an interrupted run
    }
  }
  return found;
}

// Checks the output options and opens --out; returns the verdicts a --resume keeps. Throws
// EngineError(Usage).
std::map<std::string, protocol::Verdict> open_outputs(const BenchOptions& o, std::ofstream& verdicts) {
  std::map<std::string, protocol::Verdict> done;
  if (!o.kernels.empty() && !fs::is_directory(o.kernels))
    throw EngineError(EngineError::Kind::Usage, "--kernels: no such folder: " + o.kernels);
  if (o.format == "kernelbench" && o.out.empty())
    throw EngineError(EngineError::Kind::Usage, "--format kernelbench writes KernelBench's eval results to --out FILE");
  if (o.resume && o.format == "kernelbench")
    throw EngineError(EngineError::Kind::Usage, "--resume reads hone's verdict lines: use it with --format hone");
  if (o.resume && o.out.empty()) throw EngineError(EngineError::Kind::Usage, "--resume needs --out (the run's verdicts)");
  if (o.resume) done = journal(o.out);
  if (!o.out.empty()) {
    verdicts.open(o.out, o.resume ? std::ios::app : std::ios::trunc);
    if (!verdicts) throw EngineError(EngineError::Kind::Usage, "--out: cannot write " + o.out);
  }
  return done;
}

// One job per (task, kernel): the task's hone-form kernel and any KernelBench answers for it.
struct BenchJob {
  std::size_t task;
  fs::path kernel;  // empty: nothing to check for the task
  int sample = 0;
};

std::vector<BenchJob> find_jobs(Engine& engine, const std::vector<fs::path>& tasks, const std::string& kernels_dir,
                                DeviceKind device) {
  std::vector<BenchJob> jobs;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    std::vector<fs::path> found;
    if (std::optional<fs::path> kernel = kernel_for(engine, tasks[i], kernels_dir, device)) found.push_back(*kernel);
    if (!kernels_dir.empty())
      for (auto& a : answers_for(tasks[i], kernels_dir)) found.push_back(std::move(a));
    if (found.empty()) jobs.push_back({i, {}, 0});
    for (auto& k : found) jobs.push_back({i, k, kernelbench_key(k).value_or(KernelBenchKey{}).sample});
  }
  return jobs;
}

// The plot, then the table (or one JSON object) on stdout.
void print_bench(const BenchOptions& o, const std::vector<BenchRow>& rows, const json& kernelbench) {
  if (!o.plot.empty()) {
    std::ofstream svg(o.plot, std::ios::trunc);
    svg << bench_svg(rows, "fast_p over " + std::to_string(rows.size()) + " task(s)");
    if (!svg) std::cerr << "hone: warning: could not write the plot to " << o.plot << "\n";
  }
  if (o.json) {
    json j = bench_json(rows);
    if (o.format == "kernelbench") j["kernelbench"] = kernelbench;
    std::cout << j.dump() << std::endl;
  } else {
    std::cout << bench_text(rows) << std::flush;
  }
}

// KernelBench's eval results, gathered per level and problem as the verdicts arrive.
class KernelBenchResults {
 public:
  void add(const fs::path& task, const fs::path& kernel, json entry) {
    auto key = kernelbench_key(kernel).value_or(task_key(task).value_or(KernelBenchKey{}));
    if (auto t = task_key(task); t && !key.problem) key = *t;
    levels_.insert(key.level);
    json& slot = by_level_["level" + std::to_string(key.level)][std::to_string(key.problem)];
    if (!slot.is_array()) slot = json::array();
    slot.push_back(std::move(entry));
  }
  const json& all() const { return by_level_; }
  // {"<problem id>": [entries]} for one level, as KernelBench writes them; per level when several.
  json eval_results() const { return levels_.size() == 1 ? by_level_.begin().value() : by_level_; }

 private:
  json by_level_ = json::object();
  std::set<int> levels_;
};

std::string missing_reason(const fs::path& task, DeviceKind device, const std::string& kernels_dir) {
  return "no kernel " + task.stem().string() +
         (device == DeviceKind::Cpu ? ".cpp" : device == DeviceKind::Cuda ? ".cu" : ".cu or .cpp") +
         " or KernelBench answer in " + (kernels_dir.empty() ? task.parent_path().string() : kernels_dir);
}

CheckRequest bench_request(const fs::path& task, const fs::path& kernel, DeviceKind device, const std::string& baselines) {
  CheckRequest req;
  req.kernel.path = kernel;
  req.task = task;
  req.device = device;
  req.baselines = baselines != "none";
  req.compile_baseline = baselines == "all";
  return req;
}

// One `hone bench` run: its jobs, their rows as verdicts arrive, KernelBench's results and the
// progress lines. Used on the main thread; `report` guards what the check threads touch.
class BenchRun {
 public:
  BenchRun(const BenchOptions& o, std::vector<fs::path> tasks, std::map<std::string, protocol::Verdict> done,
           std::ofstream& verdicts, Engine& engine)
      : o_(o), tasks_(std::move(tasks)), done_(std::move(done)), verdicts_(verdicts), engine_(engine),
        device_(*parse_device_kind(o.flags.device)), line_(::isatty(STDERR_FILENO)),
        jobs_(find_jobs(engine, tasks_, o.kernels, device_)), rows_(jobs_.size()) {}

  // Checks what is left, then prints the results; the exit code.
  int run() {
    plan();
    if (auto failed = check()) return *failed;
    if (auto failed = record_errors()) return *failed;
    if (o_.format == "kernelbench" && verdicts_.is_open()) verdicts_ << kernelbench_.eval_results().dump(2) << std::endl;
    print_bench(o_, rows_, kernelbench_.all());
    bool all_correct = std::all_of(rows_.begin(), rows_.end(), [](const BenchRow& r) { return r.status == "correct"; });
    return all_correct ? 0 : 1;
  }

 private:
  void add_entry(const BenchJob& job, json entry) { kernelbench_.add(tasks_[job.task], job.kernel, std::move(entry)); }

  void show(std::size_t j) {
    line_.clear();
    ++finished_;
    if (!o_.json) std::cerr << row_progress(finished_, jobs_.size(), rows_[j]) << "\n";
  }

  // Rows for tasks with nothing to check and for verdicts kept from --out; a request for the rest.
  void plan() {
    std::size_t resumed = 0;
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      const BenchJob& job = jobs_[j];
      const fs::path& task = tasks_[job.task];
      rows_[j].task = task.string();
      if (job.kernel.empty()) {
        rows_[j].status = "missing";
        rows_[j].reason = missing_reason(task, device_, o_.kernels);
        add_entry(job, kernelbench_error_entry(rows_[j].status, rows_[j].reason, 0));
        show(j);
        continue;
      }
      const std::string key =
          fs::absolute(task).lexically_normal().string() + "\n" + fs::absolute(job.kernel).lexically_normal().string();
      if (auto found = done_.find(key); found != done_.end()) {
        rows_[j] = row_from(task, job.kernel, found->second);
        ++resumed;
        show(j);
        continue;
      }
      requests_.push_back(bench_request(task, job.kernel, device_, o_.flags.baselines));
      request_job_.push_back(j);
    }
    if (resumed) std::cerr << "bench: " << resumed << " verdict(s) kept from " << o_.out << "\n";
  }

  // The checks, sharded over the pool's GPUs (or Slurm jobs); each verdict is kept in --out as it
  // arrives, so an interrupted run resumes from there. An exit code when the engine gave up.
  std::optional<int> check() {
    CallContext ctx;
    ctx.progress = [&](const Progress& p) {
      std::lock_guard lock(report_);
      line_.show(p.stage + ": " + p.message);
    };
    try {
      result_ = engine_.check_many(requests_, ctx, [&](std::size_t r, const protocol::Verdict& v) {
        std::lock_guard lock(report_);
        const std::size_t j = request_job_[r];
        rows_[j] = row_from(tasks_[jobs_[j].task], jobs_[j].kernel, v);
        add_entry(jobs_[j], kernelbench_entry(v, jobs_[j].sample));
        if (verdicts_.is_open() && o_.format != "kernelbench") verdicts_ << json(v).dump() << std::endl;
        show(j);
      });
    } catch (const EngineError& e) {
      line_.clear();
      return report_error(e, o_.json, "tasks", o_.tasks.front());
    }
    return std::nullopt;
  }

  // Rows for the checks that ended in an engine error; an exit code when the next would fail the
  // same way (no GPU, a broken environment).
  std::optional<int> record_errors() {
    for (std::size_t r = 0; r < requests_.size(); ++r) {
      if (!result_.errors[r]) continue;
      const EngineError& e = *result_.errors[r];
      const std::size_t j = request_job_[r];
      if (e.kind() == EngineError::Kind::Environment || e.kind() == EngineError::Kind::NoGpu) {
        line_.clear();
        return report_error(e, o_.json, "task", tasks_[jobs_[j].task].string());
      }
      rows_[j].kernel = jobs_[j].kernel.string();
      rows_[j].status = "error";
      rows_[j].reason = e.what();
      add_entry(jobs_[j], kernelbench_error_entry(rows_[j].status, rows_[j].reason, jobs_[j].sample));
      show(j);
    }
    return std::nullopt;
  }

  const BenchOptions& o_;
  const std::vector<fs::path> tasks_;
  const std::map<std::string, protocol::Verdict> done_;
  std::ofstream& verdicts_;
  Engine& engine_;
  const DeviceKind device_;
  ProgressLine line_;
  const std::vector<BenchJob> jobs_;
  std::vector<BenchRow> rows_;
  std::vector<CheckRequest> requests_;
  std::vector<std::size_t> request_job_;  // requests_[i] checks jobs_[request_job_[i]]
  std::size_t finished_ = 0;
  std::mutex report_;
  KernelBenchResults kernelbench_;
  Engine::ManyResult result_;
};

int run_bench(const BenchOptions& o) {
  std::vector<fs::path> tasks;
  std::unique_ptr<Engine> engine;
  std::ofstream verdicts;
  std::map<std::string, protocol::Verdict> done;
  try {
    tasks = expand_tasks(o.tasks);
    done = open_outputs(o, verdicts);
    engine = std::make_unique<Engine>(engine_options(o.flags));
  } catch (const EngineError& e) {
    return report_error(e, o.json, "tasks", o.tasks.empty() ? "" : o.tasks.front());
  }
  return BenchRun(o, std::move(tasks), std::move(done), verdicts, *engine).run();
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
  add_scale_flags(cmd, o->flags);
  cmd->add_option("--out", o->out, "Write every verdict as a JSON line to this file (as each finishes)");
  cmd->add_flag("--resume", o->resume, "Continue an interrupted run: keep the verdicts already in --out, check the rest");
  cmd->add_option("--format", o->format, "hone (verdict JSON lines) or kernelbench (KernelBench's eval-result fields, runtimes in ms)")
      ->check(CLI::IsMember({"hone", "kernelbench"}));
  cmd->add_option("--plot", o->plot, "Write an SVG plot of fast_p against the speedup threshold");
  cmd->add_flag("--json", o->json, "Print one JSON object: per-task rows and the summary");
  cmd->callback([o, &registry] { registry.set_exit_code(run_bench(*o)); });
}

}  // namespace hone::cli
