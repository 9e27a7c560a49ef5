// cli/engine_flags.cpp: engine flags, progress line and error reporting shared by check, task and bench.
#include "cli/engine_flags.h"

#include <iostream>

#include <nlohmann/json.hpp>

#include "engine/workspace_settings.h"

namespace hone::cli {

void add_engine_flags(CLI::App* cmd, EngineFlags& f) {
  cmd->add_option("--device", f.device, "Where to run: auto (GPU for .cu, CPU for .cpp), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--python", f.python, "Python interpreter that imports torch (default: $HONE_PYTHON, then search)");
}

void add_check_flags(CLI::App* cmd, EngineFlags& f) {
  cmd->add_option("--seeds", f.seeds, "Correctness trials with fresh inputs (at least 1; default 3)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--timeout", f.timeout_s, "Seconds one check may take before the worker is killed")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--arch", f.arch, "GPU architecture to build for (sm_90); default: the local GPU's");
  cmd->add_option("--baselines", f.baselines,
                  "Reference timings for the speedups: all (eager and torch.compile), eager, or none")
      ->check(CLI::IsMember({"all", "eager", "none"}));
  cmd->add_flag("--no-sandbox", f.no_sandbox, "Run candidates unconfined (recorded in the verdict)");
}

void add_scale_flags(CLI::App* cmd, EngineFlags& f) {
  cmd->add_option("--gpus", f.gpus, "GPUs to spread checks over: all, a count (2) or indices (0,2); default: one (hone.toml [run] gpus)");
  cmd->add_option("--executor", f.executor, "Where checks run: local (this host's GPUs) or slurm (jobs on a cluster; hone.toml [slurm])")
      ->check(CLI::IsMember({"local", "slurm"}));
  cmd->add_option("--slurm-partition", f.slurm_partition, "Slurm partition (sbatch --partition)");
  cmd->add_option("--slurm-account", f.slurm_account, "Slurm account (sbatch --account)");
  cmd->add_option("--slurm-time", f.slurm_time, "Time limit of one Slurm job (sbatch --time; default 00:30:00)");
  cmd->add_option("--slurm-gres", f.slurm_gres, "Generic resources of one Slurm job (sbatch --gres), e.g. gpu:1");
  cmd->add_option("--slurm-batch", f.slurm_batch, "Checks per Slurm job (default 4)")->check(CLI::Range(1, 10000));
  cmd->add_option("--slurm-retries", f.slurm_retries, "Slurm jobs a check may take before its verdict says what happened (default 3)")
      ->check(CLI::Range(1, 100));
}

EngineOptions engine_options(const EngineFlags& f) {
  EngineOptions o;
  WorkspaceSettings ws = read_workspace_settings(std::filesystem::current_path());
  o.slurm = ws.slurm;
  if (ws.gpus) apply_gpus(o, *ws.gpus);
  if (ws.executor) apply_executor(o, *ws.executor);
  if (!f.gpus.empty()) apply_gpus(o, f.gpus);
  if (!f.executor.empty()) apply_executor(o, f.executor);
  if (!f.slurm_partition.empty()) o.slurm.partition = f.slurm_partition;
  if (!f.slurm_account.empty()) o.slurm.account = f.slurm_account;
  if (!f.slurm_time.empty()) o.slurm.time_limit = f.slurm_time;
  if (!f.slurm_gres.empty()) o.slurm.gres = f.slurm_gres;
  if (f.slurm_batch > 0) o.slurm.batch_size = f.slurm_batch;
  if (f.slurm_retries > 0) o.slurm.max_attempts = f.slurm_retries;
  o.device = *parse_device_kind(f.device);
  if (!f.python.empty()) o.python = f.python;
  o.sandbox = !f.no_sandbox;
  if (f.seeds > 0) o.seeds = f.seeds;
  if (f.timeout_s > 0) o.check_timeout = std::chrono::seconds(static_cast<long>(f.timeout_s + 0.999));
  if (!f.arch.empty()) o.arch = f.arch;
  return o;
}

void ProgressLine::show(const std::string& text) {
  if (!enabled_) return;
  std::cerr << "\r\033[K" << text << std::flush;
  shown_ = true;
}

void ProgressLine::clear() {
  if (shown_) std::cerr << "\r\033[K" << std::flush;
  shown_ = false;
}

int report_error(const EngineError& e, bool as_json, const char* about, const std::string& subject) {
  if (as_json) {
    nlohmann::json j{{"error", e.what()}, {about, subject}};
    if (!e.detail().empty()) j["detail"] = e.detail();
    std::cout << j.dump() << std::endl;
  }
  // A kernel that built where there is no GPU: its warnings first, then what it needs.
  const bool no_gpu = e.kind() == EngineError::Kind::NoGpu;
  if (no_gpu && !e.detail().empty()) std::cerr << e.detail() << (e.detail().back() == '\n' ? "" : "\n");
  std::cerr << (no_gpu ? "hone: " : "hone: error: ") << e.what() << "\n";
  if (!no_gpu && !e.detail().empty()) std::cerr << e.detail() << (e.detail().back() == '\n' ? "" : "\n");
  if (e.kind() == EngineError::Kind::NoGpu) return 3;  // `hone check`: built, but its run needs a GPU
  return e.kind() == EngineError::Kind::Cancelled ? 1 : 2;
}

}  // namespace hone::cli
